import { forwardRef, type InputHTMLAttributes } from 'react';

export const inputClass =
  'block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600 disabled:cursor-not-allowed disabled:bg-slate-50 aria-[invalid=true]:ring-red-500 aria-[invalid=true]:focus:ring-red-600';

export type InputProps = InputHTMLAttributes<HTMLInputElement>;

/** A text-like input; its invalid look follows aria-invalid. */
export const Input = forwardRef<HTMLInputElement, InputProps>(function Input({ className = '', ...props }, ref) {
  return <input ref={ref} className={`${inputClass} ${className}`.trim()} {...props} />;
});
