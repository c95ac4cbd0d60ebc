import { type ReactNode } from 'react';
import { Input, type InputProps } from './input';
import { useDomId } from '~/components/ui/use-dom-id';

/** Error messages of one field (or a whole form), announced to screen readers. */
export function ErrorList({
  id,
  errors,
  className = '',
}: {
  id?: string;
  errors?: ReadonlyArray<string | null | undefined> | null;
  className?: string;
}) {
  const list = (errors ?? []).filter((e): e is string => Boolean(e));
  if (!list.length) return null;
  return (
    <ul id={id} className={`flex flex-col gap-1 ${className}`.trim()}>
      {list.map((error) => (
        <li key={error} className="text-sm text-red-600">
          {error}
        </li>
      ))}
    </ul>
  );
}

export type FieldProps = {
  label: ReactNode;
  /** Props for the input (e.g. Conform's getInputProps); id, aria-invalid and aria-describedby are filled in when missing. */
  inputProps: InputProps & { key?: string | number | null };
  errors?: ReadonlyArray<string> | null;
  /** Optional help text under the input. */
  help?: ReactNode;
  /** Something next to the label, e.g. a "forgot password?" link. */
  labelAside?: ReactNode;
  className?: string;
};

/** A label, an input and its errors, wired together for assistive technology. */
export function Field({ label, inputProps, errors, help, labelAside, className = '' }: FieldProps) {
  const fallbackId = useDomId();
  const { key: _key, ...rest } = inputProps;
  const id = rest.id ?? fallbackId;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const helpId = help ? `${id}-help` : undefined;
  const describedBy = [rest['aria-describedby'], errorId, helpId].filter(Boolean);
  const uniqueDescribedBy = [...new Set(describedBy.join(' ').split(' ').filter(Boolean))].join(' ');
  return (
    <div className={`flex flex-col gap-1.5 ${className}`.trim()}>
      <div className="flex items-center justify-between gap-2">
        <label htmlFor={id} className="text-sm font-medium text-slate-800">
          {label}
        </label>
        {labelAside}
      </div>
      <Input
        {...rest}
        id={id}
        aria-invalid={errorId ? true : rest['aria-invalid'] || undefined}
        aria-describedby={uniqueDescribedBy || undefined}
      />
      {help ? (
        <p id={helpId} className="text-xs text-slate-500">
          {help}
        </p>
      ) : null}
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}
