import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { useActionData, useLoaderData, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { ButtonLink } from '~/components/ui/button-link';
import { ScheduledList } from '~/components/wordpress/scheduled-list';
import { SeoPluginHelp } from '~/components/wordpress/seo-plugin-help';
import { SiteDeleteDialog, SiteDialog } from '~/components/wordpress/site-dialog';
import { SiteRow } from '~/components/wordpress/site-row';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import { readFormData } from '~/http/json-api.server';
import { siteActionHeadSchema, siteIntents } from '~/http/wordpress-sites.server';
import { readerTimeZone } from '~/http/time-zone.server';
import { getT } from '~/i18n.server';
import { sitePostsSummary } from '~/services/internal-links.server';
import { requireUser } from '~/services/sessions.server';
import { listScheduled } from '~/services/wordpress/schedules.server';
import { listSites } from '~/services/wordpress/sites.server';
import type { Translate } from '~/utils/auth-schemas';
import { rootT } from '~/utils/meta';
import { useTimeZone } from '~/utils/time-zone';

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const [sites, scheduled, postCache] = await Promise.all([listSites(userId), listScheduled(userId), sitePostsSummary(userId)]);
  return json({ user, account, sites, scheduled, postCache }, { headers: privatePageHeaders });
}

/** Every form of the page names its button (intent); each has its own small function. */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'wordpress')) as Translate;
  const head = parseWithZod(formData, { schema: siteActionHeadSchema, disableAutoCoercion: true });
  if (head.status !== 'success') return json({ intent: 'unknown' as const }, { status: 400 });
  return siteIntents[head.value.intent]({ userId: user.id, formData, t, head: head.value, timeZone: await readerTimeZone(request, user) });
}

export default function WordPressSites() {
  const { user, account, sites, scheduled, postCache } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation('wordpress');
  const [params] = useSearchParams();
  const zone = useTimeZone();
  const editId = Number(params.get('edit'));
  const deleteId = Number(params.get('delete'));
  const editing = sites.find((s) => s.id === editId);
  const deleting = sites.find((s) => s.id === deleteId);
  const adding = params.get('add') === '1';

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('common:wordpress.title')}</h1>
          <p className="mt-1 text-sm text-slate-700">{t('common:wordpress.subtitle')}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink to="/app/calendar" variant="secondary">
            {t('calendar.link')}
          </ButtonLink>
          <ButtonLink to="/wordpress?add=1" preventScrollReset>
            {t('sites.add')}
          </ButtonLink>
        </div>
      </div>
      <div className="mt-8 border-b border-slate-200">
        <h2 className="-mb-px inline-flex border-b-2 border-indigo-600 px-4 py-3 text-sm font-medium text-indigo-700">
          {t('common:wordpress.sitesTab')}
        </h2>
      </div>
      <section
        aria-label={t('sites.listLabel')}
        data-testid="site-list"
        className="mt-6 h-[400px] overflow-y-auto rounded-2xl bg-white shadow-sm ring-1 ring-slate-200"
        // A scrollable region must be reachable by keyboard (axe: scrollable-region-focusable).
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
        tabIndex={0}
      >
        {sites.length === 0 ? (
          <div className="flex h-full flex-col items-center justify-center p-8 text-center">
            <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-700">
              <Icon name="globe" className="size-6" />
            </span>
            <p className="mt-4 text-lg font-semibold text-slate-900">{t('common:wordpress.emptyTitle')}</p>
            <p className="mt-2 max-w-md text-sm text-slate-700">{t('common:wordpress.emptyBody')}</p>
          </div>
        ) : (
          <ul className="divide-y divide-slate-200">
            {sites.map((site) => (
              <SiteRow key={site.id} site={site} cache={postCache.find((c) => c.siteId === site.id)} timeZone={zone} />
            ))}
          </ul>
        )}
      </section>

      <ScheduledList scheduled={scheduled} timeZone={zone} />

      <SeoPluginHelp />

      {adding ? <SiteDialog mode="create" reply={actionData} /> : null}
      {editing ? <SiteDialog mode="update" site={editing} reply={actionData} /> : null}
      {deleting ? <SiteDeleteDialog site={deleting} /> : null}
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.wordpressTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
