import type { ReactNode, SelectHTMLAttributes } from 'react';
import { ErrorList } from '~/components/ui/field';

// Small form controls of the generation form: a labelled select and a labelled checkbox, wired for
// assistive technology like ui/field's Field. Colours come from Tailwind classes only.

export const selectClass =
  'block w-full rounded-lg border-0 bg-white py-2 pl-3 pr-8 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-inset focus:ring-indigo-600 disabled:cursor-not-allowed disabled:bg-slate-50 aria-[invalid=true]:ring-red-500';

export type Option = { value: string; label: string; disabled?: boolean };

// React's escaping of text and attribute values, so the markup below is what it would write.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

// The <option>s of an option list as markup, made once per list and selected value: the form's
// lists are built once per language (about 125 options a render), and React writing them out as
// elements, one by one, was the largest part of the form's render. The markup is what React wrote
// for the same elements, so the page, its hydration and its behaviour without JavaScript are the same.
const optionMarkup = new WeakMap<readonly Option[], Map<string, string>>();
function optionsHtml(options: readonly Option[], selected: string | undefined): string {
  let byValue = optionMarkup.get(options);
  if (!byValue) optionMarkup.set(options, (byValue = new Map()));
  const key = selected ?? '';
  let html = byValue.get(key);
  if (html === undefined) {
    html = options
      .map(
        (o) =>
          `<option value="${escapeHtml(o.value)}"${o.value === selected ? ' selected=""' : ''}${o.disabled ? ' disabled=""' : ''}>${escapeHtml(o.label)}</option>`,
      )
      .join('');
    byValue.set(key, html);
  }
  return html;
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
        dangerouslySetInnerHTML={{
          __html: optionsHtml(
            options,
            props.defaultValue === undefined || props.defaultValue === null ? undefined : String(props.defaultValue),
          ),
        }}
      />
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
