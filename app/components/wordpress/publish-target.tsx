import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** For an image result: a post with the image, or the media library only. */
export function PublishTarget({ onChange }: { onChange: (target: 'post' | 'media') => void }) {
  const { t } = useTranslation('wordpress');
  return (
    <fieldset data-testid="publish-target">
      <legend className="text-sm font-medium text-slate-800">{t('publish.target.legend')}</legend>
      {(['post', 'media'] as const).map((value) => (
        <div key={value} className="mt-2 flex items-start gap-2">
          <input
            id={`target-${value}`}
            type="radio"
            name="target"
            value={value}
            defaultChecked={value === 'post'}
            onChange={() => onChange(value)}
            aria-describedby={`target-${value}-help`}
            className="mt-0.5 size-4 shrink-0"
          />
          <div className="text-sm">
            <label htmlFor={`target-${value}`} className="font-medium text-slate-800">
              {t(`publish.target.${value}`)}
            </label>
            <p id={`target-${value}-help`} className="text-slate-600">
              {t(`publish.target.${value}Help`)}
            </p>
          </div>
        </div>
      ))}
    </fieldset>
  );
}

/** The post's own fields; for an image result in a box that JavaScript hides when "media library only" is picked. */
export function PostFields({ wrap, hidden, children }: { wrap: boolean; hidden: boolean; children: ReactNode }) {
  if (!wrap) return <>{children}</>;
  return <div className={`flex flex-col gap-4${hidden ? ' hidden' : ''}`}>{children}</div>;
}
