import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { privatePageHeaders, requirePageShell } from '~/utils/account.server';
import { rootT } from '~/utils/meta';

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, account } = await requirePageShell(request);
  return json({ user, account }, { headers: privatePageHeaders });
}

export default function WordPressSites() {
  const { user, account } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('wordpress.title')}</h1>
      <p className="mt-1 text-sm text-slate-700">{t('wordpress.subtitle')}</p>
      <div className="mt-8 border-b border-slate-200">
        <h2 className="-mb-px inline-flex border-b-2 border-indigo-600 px-4 py-3 text-sm font-medium text-indigo-700">{t('wordpress.sitesTab')}</h2>
      </div>
      <div className="mt-6 flex min-h-[400px] flex-col items-center justify-center rounded-2xl bg-white p-8 text-center shadow-sm ring-1 ring-slate-200">
        <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-700">
          <Icon name="globe" className="size-6" />
        </span>
        <p className="mt-4 text-lg font-semibold text-slate-900">{t('wordpress.emptyTitle')}</p>
        <p className="mt-2 max-w-md text-sm text-slate-700">{t('wordpress.emptyBody')}</p>
      </div>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.wordpressTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
