import { useTranslation } from 'react-i18next';
import { Icon } from '~/components/icons';
import { ButtonLink } from '~/components/ui/button-link';
import { inputClass } from '~/components/ui/input';
import { BulkCheckbox, BulkPublishBar } from './bulk-select';
import { PublicationStatus, type PublicationView } from './publication-status';
import { ScheduledList, type ScheduledItem } from './scheduled-list';
import { formatDateTime } from '~/utils/time-zone';
import { AppLink } from '~/components/ui/app-link';

export type IntegrationData = {
  sites: { id: number; siteName: string; isDefault: boolean }[];
  results: { id: string; title: string; createdAt: string; publication: PublicationView | null }[];
  more: boolean;
  scheduled: { waiting: ScheduledItem[]; recent: ScheduledItem[] };
  timeZone: string;
};

/**
 * The workspace's WordPress integration tab for Pro and Pro (Ending) users: pick completed results
 * and publish them now or over a schedule (the bulk publish page), and what is waiting or finished.
 */
export function WordPressIntegrationTab({ data }: { data: IntegrationData }) {
  const { t, i18n } = useTranslation('wordpress');
  const defaultSite = data.sites.find((s) => s.isDefault) ?? data.sites[0];
  return (
    <div className="flex flex-col gap-5" data-testid="integration-tab">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 className="text-lg font-semibold text-slate-900">{t('integration.title')}</h2>
          <p className="mt-1 max-w-2xl text-sm text-slate-700">{t('integration.body')}</p>
        </div>
        <ButtonLink to="/wordpress" variant="secondary" size="sm">
          {t('publish.manageSites')}
        </ButtonLink>
      </div>

      {data.sites.length === 0 ? (
        <div className="rounded-xl bg-slate-50 p-6 text-center ring-1 ring-slate-200">
          <p className="text-sm text-slate-700">{t('integration.noSites')}</p>
          <ButtonLink to="/wordpress?add=1" className="mt-4">
            {t('sites.add')}
          </ButtonLink>
        </div>
      ) : data.results.length === 0 ? (
        <div className="rounded-xl bg-slate-50 p-6 text-center ring-1 ring-slate-200">
          <p className="text-sm text-slate-700">{t('integration.noResults')}</p>
          <ButtonLink to="/app" variant="secondary" className="mt-4">
            {t('integration.generate')}
          </ButtonLink>
        </div>
      ) : (
        <>
          <BulkPublishBar>
            <label className="flex items-center gap-2 text-sm font-medium text-slate-800">
              {t('integration.pickSite')}
              <select name="site" defaultValue={defaultSite?.id} className={`${inputClass} w-auto py-1`}>
                {data.sites.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.siteName}
                  </option>
                ))}
              </select>
            </label>
          </BulkPublishBar>
          <ul className="divide-y divide-slate-200 rounded-xl ring-1 ring-slate-200" data-testid="integration-results">
            {data.results.map((r) => (
              <li key={r.id} className="flex flex-col gap-1 px-3 py-2 sm:flex-row sm:items-start sm:gap-3" data-testid="integration-result">
                <BulkCheckbox resultId={r.id} label={r.title} />
                <div className="min-w-0 flex-1 py-1">
                  <p className="break-words text-sm font-medium text-slate-900">{r.title}</p>
                  <p className="text-xs text-slate-600">
                    <time dateTime={r.createdAt}>{formatDateTime(r.createdAt, i18n.language, data.timeZone)}</time>
                  </p>
                  {r.publication ? <PublicationStatus publication={r.publication} timeZone={data.timeZone} /> : null}
                </div>
              </li>
            ))}
          </ul>
          {data.more ? (
            <p className="text-sm text-slate-700">
              {t('integration.more', { count: data.results.length })}{' '}
              <AppLink to="/app?tab=results&type=text" className="font-medium text-indigo-700 hover:underline">
                {t('integration.toResults')}
              </AppLink>
            </p>
          ) : null}
        </>
      )}

      <ScheduledList scheduled={data.scheduled} timeZone={data.timeZone} />
    </div>
  );
}

/** Free users: the Pro-feature alert and the upgrade prompt linking to /subscription. */
export function WordPressUpgrade() {
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-6">
      <div role="alert" className="flex gap-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-inset ring-amber-200">
        <Icon name="alert" className="mt-0.5 size-5 shrink-0 text-amber-600" />
        <div>
          <p className="font-semibold">{t('workspace:form.proFeature')}</p>
          <p>{t('wordpress:publish.proOnly')}</p>
        </div>
      </div>
      <div className="text-center">
        <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-indigo-50 text-indigo-700">
          <Icon name="send" className="size-6" />
        </span>
        <h2 className="mt-4 text-lg font-semibold text-slate-900">{t('workspace.wordpress.upgradeTitle')}</h2>
        <p className="mx-auto mt-2 max-w-md text-sm text-slate-700">{t('workspace.wordpress.upgradeBody')}</p>
        <ButtonLink to="/subscription" className="mt-6">
          {t('workspace.wordpress.upgradeButton')}
        </ButtonLink>
      </div>
    </div>
  );
}
