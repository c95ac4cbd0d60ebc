import type { ReactElement, ReactNode, SelectHTMLAttributes } from 'react';
import { ErrorList } from '~/components/ui/field';

// Small form controls of the generation form: a labelled select and a labelled checkbox, wired for
// assistive technology like ui/field's Field. Colours come from Tailwind classes only.

export const selectClass =
  'block w-full rounded-lg border-0 bg-white py-2 pl-3 pr-8 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-inset focus:ring-indigo-600 disabled:cursor-not-allowed disabled:bg-slate-50 aria-[invalid=true]:ring-red-500';

export type Option = { value: string; label: string; disabled?: boolean };

// The <option> elements of an option list, made once per list: the form's lists are built once per
// language (about 125 options a render), and React elements never change once made.
const optionElements = new WeakMap<readonly Option[], ReactElement[]>();
function optionsOf(options: readonly Option[]): ReactElement[] {
  let elements = optionElements.get(options);
  if (!elements) {
    elements = options.map((o) => (
      <option key={o.value} value={o.value} disabled={o.disabled}>
        {o.label}
      </option>
    ));
    optionElements.set(options, elements);
  }
  return elements;
}

export function SelectField({
  label,
  options,
  errors,
  help,
  selectProps,
  className = '',
}: {
  label: ReactNode;
  options: readonly Option[];
  errors?: ReadonlyArray<string> | null;
  help?: ReactNode;
  selectProps: SelectHTMLAttributes<HTMLSelectElement> & { id: string; key?: string | number | null };
  className?: string;
}) {
  const { key, ...props } = selectProps;
  const errorId = errors?.length ? `${props.id}-error` : undefined;
  const helpId = help ? `${props.id}-help` : undefined;
  const describedBy = [errorId, helpId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`flex flex-col gap-1.5 ${className}`.trim()}>
      <label htmlFor={props.id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      <select
        key={key ?? undefined}
        {...props}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={describedBy}
        className={selectClass}
      >
        {optionsOf(options)}
      </select>
      {help ? (
        <p id={helpId} className="text-xs text-slate-600">
          {help}
        </p>
      ) : null}
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}

export function CheckboxField({
  label,
  help,
  inputProps,
}: {
  label: ReactNode;
  help?: ReactNode;
  inputProps: React.InputHTMLAttributes<HTMLInputElement> & { id: string; key?: string | number | null };
}) {
  const { key, ...props } = inputProps;
  const helpId = help ? `${props.id}-help` : undefined;
  return (
    <div className="flex items-start gap-2">
      <input
        key={key ?? undefined}
        {...props}
        type="checkbox"
        aria-describedby={helpId}
        className="mt-0.5 size-4 rounded border-slate-300 text-indigo-600 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
      />
      <div className="flex flex-col">
        <label htmlFor={props.id} className="text-sm text-slate-800">
          {label}
        </label>
        {help ? (
          <p id={helpId} className="text-xs text-slate-600">
            {help}
          </p>
        ) : null}
      </div>
    </div>
  );
}
