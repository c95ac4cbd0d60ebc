import { useTranslation } from 'react-i18next';
import { ExistingChoice } from './existing-choice';

/**
 * Selected results already on the site: each linked to its post, and one choice for all of them:
 * update their posts, publish new ones, or leave them out.
 */
export function BulkExistingPosts({
  existing,
  siteName,
}: {
  existing: { resultId: string; title: string; status: string; link: string | null }[];
  siteName: string;
}) {
  const { t } = useTranslation('wordpress');
  return (
    <div className="rounded-lg bg-amber-50 p-4 text-sm text-amber-950 ring-1 ring-inset ring-amber-200" data-testid="bulk-existing">
      <p className="font-semibold">{t('bulk.existing.title', { count: existing.length, site: siteName })}</p>
      <ul className="mt-2 list-disc pl-5">
        {existing.map((e) => (
          <li key={e.resultId} className="break-words">
            {e.title}{' '}
            {e.link ? (
              <a href={e.link} target="_blank" rel="noreferrer" className="font-medium text-indigo-700 underline">
                {t('publish.viewPost')}
              </a>
            ) : (
              <span className="text-amber-900">({t('publish.status.queued')})</span>
            )}
          </li>
        ))}
      </ul>
      <fieldset className="mt-3">
        <legend className="font-medium">{t('bulk.existing.choose')}</legend>
        {(['update', 'new', 'skip'] as const).map((value) => (
          <ExistingChoice
            key={value}
            idPrefix="bulk-existing"
            value={value}
            label={t(`bulk.existing.${value}`)}
            help={t(`bulk.existing.${value}Help`)}
          />
        ))}
      </fieldset>
    </div>
  );
}
