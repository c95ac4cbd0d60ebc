import { Icon } from '~/components/icons';

/** The "done" state of a public form: a check mark, a heading, the announced text, then next steps. */
export function SuccessPanel({ title, text, children }: { title: string; text: string; children?: React.ReactNode }) {
  return (
    <div className="flex flex-col gap-4">
      <span className="flex size-12 items-center justify-center rounded-full bg-emerald-50 text-emerald-600">
        <Icon name="check" className="size-6" />
      </span>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
      <p role="status" className="text-sm text-slate-700">
        {text}
      </p>
      {children}
    </div>
  );
}
