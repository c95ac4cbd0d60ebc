import type { TextareaHTMLAttributes, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorList } from '~/components/ui/field';

/**
 * The topics text area (one topic or keyword per line). Its own component so the input
 * tools (CSV import, generate-titles) can sit beside it: `toolbar` renders next to the label and
 * `replacement` takes the text area's place (e.g. the CSV drop zone while importing).
 */
export function TopicsField({
  kind,
  count,
  textareaProps,
  errors,
  toolbar,
  replacement,
}: {
  kind: 'text' | 'image';
  count: number;
  textareaProps: TextareaHTMLAttributes<HTMLTextAreaElement> & { id: string; key?: string | number | null };
  errors?: ReadonlyArray<string> | null;
  toolbar?: ReactNode;
  replacement?: ReactNode;
}) {
  const { t } = useTranslation('workspace');
  const { key, ...props } = textareaProps;
  const helpId = `${props.id}-help`;
  const errorId = errors?.length ? `${props.id}-error` : undefined;
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <label htmlFor={props.id} className="text-sm font-medium text-slate-800">
          {kind === 'image' ? t('form.topics.imageLabel') : t('form.topics.label')}
        </label>
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-xs text-slate-600" data-testid="topic-count">
            {t(kind === 'image' ? 'form.topics.imageCount' : 'form.topics.count', { count })}
          </span>
          {toolbar}
        </div>
      </div>
      {replacement ?? (
        <textarea
          key={key ?? undefined}
          {...props}
          rows={8}
          placeholder={t(kind === 'image' ? 'form.topics.imagePlaceholder' : 'form.topics.placeholder')}
          aria-invalid={errorId ? true : undefined}
          aria-describedby={[errorId, helpId].filter(Boolean).join(' ')}
          className="block w-full rounded-lg border-0 bg-white px-3 py-2 font-mono text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600 aria-[invalid=true]:ring-red-500"
        />
      )}
      <p id={helpId} className="text-xs text-slate-600">
        {kind === 'image' ? t('form.topics.imageHelp') : t('form.topics.help')}
      </p>
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}
