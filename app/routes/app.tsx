import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Link, useLoaderData, useSearchParams } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { Badge } from '~/components/ui/badge';
import { ButtonLink } from '~/components/ui/button-link';
import { privatePageHeaders, requirePageShell } from '~/utils/account.server';
import { rootT } from '~/utils/meta';

const tabs = ['input', 'results', 'wordpress'] as const;
type Tab = (typeof tabs)[number];

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, account } = await requirePageShell(request);
  return json({ user, account }, { headers: privatePageHeaders });
}

function TabPanel({ tab, canUseWordPress }: { tab: Tab; canUseWordPress: boolean }) {
  const { t } = useTranslation();
  if (tab === 'wordpress' && !canUseWordPress) {
    return (
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
    );
  }
  const icon = tab === 'input' ? 'file' : tab === 'results' ? 'layers' : 'send';
  return (
    <div className="text-center">
      <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-700">
        <Icon name={icon} className="size-6" />
      </span>
      <h2 className="mt-4 text-lg font-semibold text-slate-900">{t(`workspace.${tab}.title`)}</h2>
      <p className="mx-auto mt-2 max-w-md text-sm text-slate-700">{t(`workspace.${tab}.body`)}</p>
      {tab === 'wordpress' ? (
        <ButtonLink to="/wordpress" variant="secondary" className="mt-6">
          {t('workspace.wordpress.manageSites')}
        </ButtonLink>
      ) : null}
    </div>
  );
}

export default function Workspace() {
  const { user, account } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const requested = params.get('tab');
  const tab: Tab = tabs.includes(requested as Tab) ? (requested as Tab) : 'input';
  const canUseWordPress = user.subscriptionStatus === 'pro' || user.subscriptionStatus === 'canceled';

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('workspace.welcome', { name: user.name })}</h1>
        <p className="text-sm text-slate-700">{t('workspace.subtitle')}</p>
      </div>

      <nav aria-label={t('workspace.tabs.label')} className="mt-8 border-b border-slate-200">
        <ul className="-mb-px flex gap-2 overflow-x-auto">
          {tabs.map((name) => {
            const active = name === tab;
            return (
              <li key={name}>
                <Link
                  to={name === 'input' ? '/app' : `/app?tab=${name}`}
                  aria-current={active ? 'page' : undefined}
                  preventScrollReset
                  className={`inline-flex items-center gap-2 whitespace-nowrap border-b-2 px-4 py-3 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                    active ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900'
                  }`}
                >
                  {t(`workspace.tabs.${name}`)}
                  {name === 'wordpress' && !canUseWordPress ? <Badge tone="brand">{t('plan.pro')}</Badge> : null}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>

      <section aria-label={t(`workspace.tabs.${tab}`)} className="mt-6 rounded-2xl bg-white p-8 shadow-sm ring-1 ring-slate-200">
        <TabPanel tab={tab} canUseWordPress={canUseWordPress} />
      </section>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.appTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
