import { useTranslation } from 'react-i18next';
import { formatDateTimeInZone } from '~/utils/time-zone';
import { ExistingChoice } from './existing-choice';
import { AppLink } from '~/components/ui/app-link';

/** The result's earlier publication on the chosen site, as the publish page shows it. */
export type ExistingPublication = { status: string; link: string | null; at: string; siteName: string };

/**
 * A result already published to the chosen site (or waiting to be): a link to its post, and the
 * user's choice: update that post or make a new one.
 */
export function PublishExisting({ existing, timeZone }: { existing: ExistingPublication; timeZone: string }) {
  const { t, i18n } = useTranslation('wordpress');
  return (
    <div className="rounded-lg bg-amber-50 p-4 text-sm text-amber-950 ring-1 ring-inset ring-amber-200" data-testid="already-published">
      <p className="font-semibold">{t('publish.existing.title', { site: existing.siteName })}</p>
      <p className="mt-1">
        {t(existing.status === 'published' ? 'publish.existing.published' : 'publish.existing.queued', {
          date: formatDateTimeInZone(existing.at, i18n.language, timeZone),
        })}{' '}
        {existing.link ? (
          <a href={existing.link} target="_blank" rel="noreferrer" className="font-medium text-indigo-700 underline">
            {t('publish.existing.view')}
          </a>
        ) : null}
      </p>
      <fieldset className="mt-3">
        <legend className="font-medium">{t('publish.existing.choose')}</legend>
        {existing.status === 'published' ? (
          <ExistingChoice
            idPrefix="on-existing"
            value="update"
            label={t('publish.existing.update')}
            help={t('publish.existing.updateHelp')}
          />
        ) : null}
        <ExistingChoice idPrefix="on-existing" value="new" label={t('publish.existing.new')} help={t('publish.existing.newHelp')} />
        {existing.status === 'queued' ? (
          <p className="mt-2">
            {t('publish.existing.queuedHelp')}{' '}
            <AppLink to="/wordpress" className="font-medium text-indigo-700 underline">
              {t('publish.manageSites')}
            </AppLink>
          </p>
        ) : null}
      </fieldset>
    </div>
  );
}
