import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { useLoaderData, useLocation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { BalanceChart } from '~/components/balance-chart';
import { CreditHistory } from '~/components/credit-history';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { PlanBadge } from '~/components/plan-badge';
import { balanceSeriesSince, listHistory } from '~/services/ledger.server';
import { privatePageHeaders, requirePageShell } from '~/utils/account.server';
import { rootT } from '~/utils/meta';
import { formatDate, useTimeZone } from '~/utils/time-zone';
import { requestTimeZone } from '~/utils/time-zone.server';

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const page = Number(new URL(request.url).searchParams.get('historyPage')) || 1;
  const timeZone = requestTimeZone(request);
  const [history, balance] = await Promise.all([listHistory(userId, page), balanceSeriesSince(userId, { timeZone, maxDays: 90 })]);
  const ledger = {
    history: {
      page: history.page,
      pageCount: history.pageCount,
      total: history.total,
      rows: history.rows.map((r) => ({
        seq: r.seq,
        createdAt: r.createdAt.toISOString(),
        kind: r.kind,
        delta: r.delta,
        amount: r.amount,
        balanceAfter: r.balanceAfter,
        bucket: r.bucket,
      })),
    },
    balance,
  };
  return json({ user, account, ledger }, { headers: privatePageHeaders });
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200">
      <dt className="text-sm text-slate-700">{label}</dt>
      <dd className="mt-1 text-2xl font-bold text-slate-900" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

export default function Subscription() {
  const { user, account, ledger } = useLoaderData<typeof loader>();
  const location = useLocation();
  const { t, i18n } = useTranslation();
  const timeZone = useTimeZone();
  const number = (n: number) => n.toLocaleString(i18n.language);
  const reset = account.credits.nextResetAt ? formatDate(account.credits.nextResetAt, i18n.language, timeZone) : t('subscription.noReset');

  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('subscription.title')}</h1>
      <p className="mt-1 text-sm text-slate-700">{t('subscription.subtitle')}</p>

      <section aria-labelledby="current-plan" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <div className="flex flex-wrap items-center gap-3">
          <h2 id="current-plan" className="text-lg font-semibold text-slate-900">
            {t('subscription.currentPlan')}
          </h2>
          <PlanBadge status={account.plan} />
        </div>
        <p className="mt-2 text-sm text-slate-700">{t(`subscription.planDescription.${account.plan}`)}</p>
        <dl className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <Figure label={t('subscription.monthlyCredits')} value={number(account.credits.creditsRemaining)} testId="monthly-credits" />
          <Figure label={t('subscription.topUpCredits')} value={number(account.credits.topUpCreditsRemaining)} testId="topup-credits" />
          <Figure label={t('subscription.totalCredits')} value={number(account.credits.totalCreditsRemaining)} testId="total-credits" />
          <Figure label={t('subscription.nextReset')} value={reset} testId="next-reset" />
        </dl>
      </section>

      <section aria-labelledby="plans" className="mt-8 grid gap-6 md:grid-cols-2">
        <h2 id="plans" className="sr-only">
          {t('subscription.plansTitle')}
        </h2>
        <article className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <h3 className="text-base font-semibold text-slate-900">{t('landing.credits.free.name')}</h3>
          <p className="mt-1 text-sm text-slate-700">{t('landing.credits.free.credits')}</p>
        </article>
        <article className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-indigo-200">
          <h3 className="text-base font-semibold text-slate-900">{t('landing.credits.pro.name')}</h3>
          <p className="mt-1 text-sm text-slate-700">
            {t('landing.credits.pro.credits')} · $15 {t('landing.credits.pro.perMonth')}
          </p>
        </article>
      </section>

      <BalanceChart points={ledger.balance} />
      <CreditHistory history={ledger.history} search={location.search} />
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.subscriptionTitle') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
