/**
 * One answer to "already on the site" on the publish pages (update the post, publish a new one, or
 * leave it out): a required `onExisting` radio, its label, and what it does (described by).
 */
export function ExistingChoice({
  idPrefix,
  value,
  label,
  help,
}: {
  idPrefix: string;
  value: 'update' | 'new' | 'skip';
  label: string;
  help: string;
}) {
  const id = `${idPrefix}-${value}`;
  return (
    <div className="mt-2 flex items-start gap-2">
      <input
        id={id}
        type="radio"
        name="onExisting"
        value={value}
        required
        aria-describedby={`${id}-help`}
        className="mt-0.5 size-4 shrink-0"
      />
      <div>
        <label htmlFor={id} className="font-medium">
          {label}
        </label>
        <p id={`${id}-help`} className="text-amber-900">
          {help}
        </p>
      </div>
    </div>
  );
}
