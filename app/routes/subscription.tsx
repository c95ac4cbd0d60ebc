import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { Form, useLoaderData, useLocation, useNavigate, useNavigation, useRevalidator } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { LOW_CREDIT_THRESHOLD, planOf } from '~/catalogue';
import { AppShell } from '~/components/app-shell';
import { SettingsButton } from '~/components/settings-dialog';
import { BalanceChart } from '~/components/balance-chart';
import { CreditHistory } from '~/components/credit-history';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { PlanBadge } from '~/components/plan-badge';
import { Button } from '~/components/ui/button';
import { getT } from '~/i18n.server';
import { claimReturnShown, createCheckout, createPortalSession, syncCheckoutSession } from '~/services/billing/checkout.server';
import { recentDuplicateSubscriptions } from '~/services/billing/duplicates.server';
import { recentShortfalls } from '~/services/billing/shortfalls.server';
import { BillingError } from '~/services/billing/errors.server';
import { catalogueWithPrices } from '~/services/billing/prices.server';
import { getSubscriptionInfo } from '~/services/billing/subscription-info.server';
import { cancelSubscription } from '~/services/billing/subscriptions.server';
import { loadCreditHistory } from '~/services/ledger.server';
import { countScheduledAfter } from '~/services/wordpress/schedules.server';
import { formatDate, useTimeZone } from '~/utils/time-zone';
import { formatUsd, numberFormat } from '~/utils/intl-format';
import { readerTimeZone } from '~/http/time-zone.server';
import { getUser, requireUser } from '~/services/sessions.server';
import { billingConfigured } from '~/services/stripe.server';
import { privatePageHeaders } from '~/http/account.server';
import { translateError } from '~/http/errors.server';
import { readFormData } from '~/http/json-api.server';
import { loadEnv } from '~/runtime/env.server';
import { rootT } from '~/utils/meta';
import { redirectWithToast } from '~/http/toast.server';

const RETURN_KEYS = ['success', 'canceled', 'isTopUp', 'creditAmount', 'session_id'] as const;

/** The payment-return parameters of a URL, as a query string ('' when none). */
function returnQuery(url: URL): string {
  const kept = new URLSearchParams();
  for (const k of RETURN_KEYS) {
    const v = url.searchParams.get(k);
    if (v !== null) kept.set(k, v.slice(0, 300));
  }
  return kept.toString();
}

/**
 * What the return page may say about a payment: only what the server verified. The
 * URL's isTopUp and creditAmount are never read: the session is retrieved from Stripe and fulfilled
 * by the webhook's own fulfilment (booked once), and the credits shown are the checkout's own.
 */
type PaymentReturn =
  | { state: 'paid'; kind: 'subscription' | 'topup'; credits: number | null }
  /** The same paid session, already announced once: said so, never as new. */
  | { state: 'shown'; shownAt: string }
  /** A canceled Pro resumed (no payment): what is verified is the plan itself. */
  | { state: 'resumed' }
  | { state: 'pending' }
  | { state: 'unverified'; reason: string }
  | { state: 'canceled' };

async function verifyPaymentReturn(request: Request, url: URL, userId: string): Promise<PaymentReturn | null> {
  if (url.searchParams.get('canceled') === 'true') return { state: 'canceled' };
  if (!billingConfigured()) return null;
  if (url.searchParams.get('resumed') === 'true') {
    const info = await getSubscriptionInfo(userId);
    return info.subscriptionStatus === 'pro' && !info.cancelAtPeriodEnd ? { state: 'resumed' } : null;
  }
  if (url.searchParams.get('success') !== 'true') return null;
  const sessionId = url.searchParams.get('session_id');
  // Only a Checkout Session proves a payment: without one the URL says nothing.
  if (!sessionId) return null;
  try {
    const result = await syncCheckoutSession(userId, sessionId);
    const shownAt = await claimReturnShown(userId, sessionId);
    if (shownAt) return { state: 'shown', shownAt: shownAt.toISOString() };
    return { state: 'paid', kind: result.kind, credits: result.kind === 'topup' ? (result.credits ?? null) : null };
  } catch (err) {
    if (!(err instanceof BillingError)) throw err;
    if (err.code === 'not_paid') return { state: 'pending' };
    return { state: 'unverified', reason: await translateError(request, err) };
  }
}

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  // A payment return while signed out goes to the sign-in, which says why and comes back here.
  if (!(await getUser(request))) {
    if (url.searchParams.get('success') === 'true' || url.searchParams.get('canceled') === 'true') {
      throw redirect(`/auth?redirectTo=${encodeURIComponent(`/subscription?${returnQuery(url)}`)}`);
    }
    throw redirect('/');
  }
  // The header's figures come from the panel's own read below (after the payment return is settled),
  // so the page does not read the balance twice.
  const { id: userId, name, email } = await requireUser(request);
  // The return page settles the payment itself (the webhook may come later), before reading balances.
  const payment = await verifyPaymentReturn(request, url, userId);
  const historyPage = Number(url.searchParams.get('historyPage')) || 1;
  // The balance first: its read makes the lazy monthly reset, which the history must then list.
  const info = await getSubscriptionInfo(userId);
  const [ledger, duplicates, shortfalls] = await Promise.all([
    loadCreditHistory(userId, historyPage, { timeZone: await readerTimeZone(request) }),
    recentDuplicateSubscriptions(userId),
    recentShortfalls(userId),
  ]);
  const shellUser = { name, email, subscriptionStatus: info.subscriptionStatus };
  // Scheduled posts due after the Pro period ends will not be published: cancelling warns of them.
  const scheduledAfterEnd =
    info.subscriptionStatus === 'pro' || info.subscriptionStatus === 'canceled'
      ? await countScheduledAfter(userId, info.nextBillingDate ? new Date(info.nextBillingDate) : new Date())
      : 0;
  return json(
    {
      user: shellUser,
      info,
      catalogue: catalogueWithPrices(),
      configured: billingConfigured(),
      payment,
      duplicates,
      shortfalls,
      ledger,
      scheduledAfterEnd,
    },
    { headers: privatePageHeaders },
  );
}

/** What the page's buttons post: which button, and the plan or pack of a checkout. */
const subscriptionFormSchema = z.discriminatedUnion('intent', [
  // A missing price is the service's "unknown price" refusal, told as a toast.
  z.object({ intent: z.literal('checkout'), priceId: z.string().default('') }),
  z.object({ intent: z.literal('portal') }),
  z.object({ intent: z.literal('cancel') }),
]);

/** Every button of the page posts here (works without JavaScript); each answer is a redirect. */
export async function action({ request }: ActionFunctionArgs) {
  const user = await getUser(request);
  if (!user) throw redirect('/');
  const formData = await readFormData(request);
  const submission = formData instanceof Response ? null : parseWithZod(formData, { schema: subscriptionFormSchema });
  // Only a hand-made post lacks a known button: back to the page, as before.
  if (submission?.status !== 'success') return redirect('/subscription', 303);
  const input = submission.value;
  const intent = input.intent;
  const t = await getT(request, 'billing');
  try {
    if (input.intent === 'checkout') {
      const { url } = await createCheckout(user, input.priceId, user.language);
      const own = loadEnv().APP_URL;
      return redirect(url.startsWith(`${own}/`) ? url.slice(own.length) : `/subscription/redirect?to=${encodeURIComponent(url)}`, 303);
    }
    if (intent === 'portal') {
      const url = await createPortalSession(user, user.language);
      return redirect(`/subscription/redirect?to=${encodeURIComponent(url)}`, 303);
    }
    if (intent === 'cancel') {
      await cancelSubscription(user);
      return redirectWithToast(
        '/subscription',
        { type: 'success', title: t('toasts.canceled'), description: t('toasts.canceledBody') },
        { status: 303 },
      );
    }
  } catch (err) {
    if (!(err instanceof BillingError)) throw err;
    const description = await translateError(request, err);
    const title =
      err.code === 'no_active_subscription'
        ? t('toasts.noActive')
        : err.code === 'not_configured'
          ? t('toasts.notConfigured')
          : intent === 'cancel'
            ? t('toasts.cancelFailed')
            : intent === 'portal'
              ? t('toasts.portalFailed')
              : t('toasts.checkoutFailed');
    return redirectWithToast(
      '/subscription',
      { type: err.code === 'no_active_subscription' ? 'info' : 'error', title, description },
      { status: 303 },
    );
  }
  return redirect('/subscription', 303);
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

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

function Alert({
  tone,
  title,
  children,
  testId,
}: {
  tone: 'success' | 'danger' | 'warning' | 'info';
  title?: string;
  children?: React.ReactNode;
  testId: string;
}) {
  const tones = {
    success: 'bg-emerald-50 text-emerald-900 ring-emerald-200',
    danger: 'bg-red-50 text-red-900 ring-red-200',
    warning: 'bg-amber-50 text-amber-900 ring-amber-300',
    info: 'bg-sky-50 text-sky-900 ring-sky-200',
  } as const;
  return (
    <div
      role={tone === 'danger' || tone === 'warning' ? 'alert' : 'status'}
      data-testid={testId}
      className={`mt-6 rounded-xl p-4 ring-1 ${tones[tone]}`}
    >
      {title ? <p className="font-semibold">{title}</p> : null}
      {children ? <div className="mt-1 text-sm">{children}</div> : null}
    </div>
  );
}

function SubmitButton({
  intent,
  priceId,
  disabled,
  children,
  variant = 'primary',
  testId,
}: {
  intent: string;
  priceId?: string | null;
  disabled?: boolean;
  children: React.ReactNode;
  variant?: 'primary' | 'secondary' | 'destructive';
  testId: string;
}) {
  const navigation = useNavigation();
  const busy =
    navigation.state !== 'idle' &&
    navigation.formData?.get('intent') === intent &&
    (priceId ? navigation.formData?.get('priceId') === priceId : true);
  return (
    <Form method="post" replace>
      <input type="hidden" name="intent" value={intent} />
      {priceId ? <input type="hidden" name="priceId" value={priceId} /> : null}
      <Button type="submit" variant={variant} disabled={disabled} pending={busy} data-testid={testId} className="w-full">
        {children}
      </Button>
    </Form>
  );
}

/**
 * Payment return with JavaScript: confirm with the server (the loader already did; the client
 * API makes the same call), refetch, tidy the URL. The banner shows the loader's verified answer and stays
 * after the query string is cleared.
 */
function usePaymentReturn(payment: PaymentReturn | null) {
  const navigate = useNavigate();
  const { revalidate } = useRevalidator();
  const [banner, setBanner] = useState<PaymentReturn | null>(payment);
  useEffect(() => {
    // The page's own refetch finds the payment already shown: the first answer stays.
    if (payment) setBanner((prev) => (prev?.state === 'paid' && payment.state === 'shown' ? prev : payment));
  }, [payment]);
  const started = useRef(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const current = new URLSearchParams(window.location.search);
    if (current.get('success') === 'true') {
      const body = JSON.stringify({ sessionId: current.get('session_id') ?? undefined });
      const post = (path: string) =>
        fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body });
      void (async () => {
        try {
          let res = await post('/api/subscription/manual-upgrade');
          if (res.status === 404) res = await post('/api/subscription/activate');
        } catch {
          // The webhook settles it; the page refetches below either way.
        }
        revalidate();
        timer.current = window.setTimeout(() => navigate('/subscription', { replace: true, preventScrollReset: true }), 500);
      })();
    } else if (current.get('canceled') === 'true') {
      revalidate();
      timer.current = window.setTimeout(() => {
        setBanner(null);
        navigate('/subscription', { replace: true, preventScrollReset: true });
      }, 5000);
    }
  }, [navigate, revalidate]);
  return { banner, dismiss: () => setBanner(null) };
}

export default function Subscription() {
  return <SubscriptionPanel data={useLoaderData<typeof loader>()} />;
}

function SubscriptionPanel({ data }: { data: Loaded }) {
  const { user, info, catalogue: prices, configured, payment, duplicates, shortfalls, ledger, scheduledAfterEnd } = data;
  const location = useLocation();
  const { t, i18n } = useTranslation();
  const { t: b } = useTranslation('billing');
  const { banner, dismiss } = usePaymentReturn(payment);
  const number = (n: number) => n.toLocaleString(i18n.language);
  const timeZone = useTimeZone();
  const date = (iso: string | null) => (iso ? formatDate(iso, i18n.language, timeZone) : null);
  const money = (usd: number) => formatUsd(i18n.language, usd);
  const cents = (amount: number) => numberFormat(i18n.language, { style: 'currency', currency: 'USD' }).format(amount / 100);
  const status = info.subscriptionStatus;
  const pro = status === 'pro' || status === 'canceled';
  const nextDate = date(info.nextBillingDate);
  const low = pro && info.totalCreditsRemaining < LOW_CREDIT_THRESHOLD;
  const scheduledWarning =
    scheduledAfterEnd > 0 ? (
      <p className="mt-2 font-semibold text-red-700" data-testid="scheduled-loss-warning">
        {nextDate
          ? b('page.cancelScheduledWarning', { count: scheduledAfterEnd, date: nextDate })
          : b('page.cancelScheduledWarningNoDate', { count: scheduledAfterEnd })}{' '}
        <a href="/wordpress" className="underline">
          {b('page.scheduledPostsLink')}
        </a>
      </p>
    ) : null;

  const cancelPanel = (label: string, testId: string) => (
    <details className="mt-3 rounded-lg ring-1 ring-slate-200" data-testid={`${testId}-panel`}>
      <summary
        className="cursor-pointer list-none rounded-lg px-4 py-2 text-center text-sm font-semibold text-red-700 hover:bg-red-50"
        data-testid={testId}
      >
        {label}
      </summary>
      <div className="border-t border-slate-200 p-4 text-sm text-slate-800" role="group" aria-label={b('page.cancelTitle')}>
        <p className="font-semibold">{b('page.cancelTitle')}</p>
        <p className="mt-1">{nextDate ? b('page.cancelBody', { date: nextDate }) : b('page.cancelBodyNoDate')}</p>
        {info.topUpCreditsRemaining > 0 ? (
          <p className="mt-2 font-semibold text-red-700" role="alert" data-testid="topup-loss-warning">
            {b('page.cancelTopUpWarning', { count: info.topUpCreditsRemaining })}
          </p>
        ) : null}
        {scheduledWarning}
        <div className="mt-3">
          <SubmitButton intent="cancel" variant="destructive" testId="confirm-cancel">
            {b('page.confirmCancel')}
          </SubmitButton>
        </div>
      </div>
    </details>
  );

  return (
    <AppShell user={user} credits={info.totalCreditsRemaining}>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('subscription.title')}</h1>
      <SettingsButton className="mt-3" />
      <p className="mt-1 text-sm text-slate-700">{t('subscription.subtitle')}</p>

      {banner?.state === 'paid' ? (
        <Alert tone="success" title={b('banners.success')} testId="payment-success">
          {banner.kind === 'topup' && banner.credits ? b('banners.successTopUp', { count: banner.credits }) : b('banners.successBody')}
        </Alert>
      ) : null}
      {banner?.state === 'shown' ? (
        <Alert tone="info" title={b('banners.shownTitle')} testId="payment-shown">
          {b('banners.shown', { date: date(banner.shownAt) })}
        </Alert>
      ) : null}
      {banner?.state === 'resumed' ? (
        <Alert tone="success" title={b('banners.resumedTitle')} testId="subscription-resumed">
          {b('banners.resumed')}
        </Alert>
      ) : null}
      {banner?.state === 'pending' ? (
        <Alert tone="info" title={b('banners.pendingTitle')} testId="payment-pending">
          {b('banners.pending')}
        </Alert>
      ) : null}
      {banner?.state === 'unverified' ? (
        <Alert tone="warning" title={b('banners.unverified')} testId="payment-unverified">
          {banner.reason}. {b('banners.unverifiedBody')}
        </Alert>
      ) : null}
      {banner?.state === 'canceled' ? (
        <Alert tone="danger" title={b('banners.canceled')} testId="payment-canceled">
          {b('banners.canceledBody')}
        </Alert>
      ) : null}
      {banner ? (
        <button type="button" onClick={dismiss} className="sr-only focus:not-sr-only">
          {b('banners.dismiss')}
        </button>
      ) : null}
      {duplicates.map((d) => (
        <Alert
          key={d.startedAt}
          tone={d.state === 'failed' ? 'warning' : 'info'}
          title={b('duplicate.title')}
          testId="duplicate-subscription"
        >
          {d.state === 'done'
            ? b('duplicate.resolved', { date: date(d.startedAt), amount: cents(d.refundedCents ?? 0) })
            : b(`duplicate.${d.state}`, { date: date(d.startedAt) })}
        </Alert>
      ))}
      {shortfalls.map((f) => (
        <Alert key={f.createdAt} tone={f.state === 'failed' ? 'warning' : 'info'} title={b('shortfall.title')} testId="refund-shortfall">
          {b(`shortfall.${f.state}`, {
            date: date(f.createdAt),
            amount: f.refundedMinor === null ? '' : cents(f.refundedMinor),
            credits: f.creditsShort,
            recovered: f.creditsRecovered,
            left: f.creditsShort - f.creditsRecovered,
          })}
        </Alert>
      ))}
      {!configured ? <Alert tone="info" title={b('page.notConfigured')} testId="billing-not-configured" /> : null}
      {status === 'canceled' ? (
        <Alert tone="warning" testId="canceled-alert">
          {nextDate ? b('page.canceledAlert', { date: nextDate }) : b('page.canceledAlertNoDate')}
          {scheduledWarning}
        </Alert>
      ) : null}
      {low ? (
        <Alert tone="warning" title={b('page.lowCredits', { count: info.totalCreditsRemaining })} testId="low-credits">
          {b('page.lowCreditsHint')}
        </Alert>
      ) : null}

      <section aria-labelledby="current-plan" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <div className="flex flex-wrap items-center gap-3">
          <h2 id="current-plan" className="text-lg font-semibold text-slate-900">
            {t('subscription.currentPlan')}
          </h2>
          <span data-testid="current-plan-badge">
            <PlanBadge status={status} />
          </span>
        </div>
        <p className="mt-2 text-sm text-slate-700">
          {t(`subscription.planDescription.${status}`, { count: planOf(status).monthlyCredits })}
        </p>
        <dl className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <Figure label={t('subscription.monthlyCredits')} value={number(info.creditsRemaining)} testId="monthly-credits" />
          <Figure label={t('subscription.topUpCredits')} value={number(info.topUpCreditsRemaining)} testId="topup-credits" />
          <Figure label={t('subscription.totalCredits')} value={number(info.totalCreditsRemaining)} testId="total-credits" />
          <Figure label={t('subscription.nextReset')} value={nextDate ?? t('subscription.noReset')} testId="next-reset" />
        </dl>
        {configured && info.hasBillingAccount ? (
          <div className="mt-6 flex flex-wrap items-center gap-3">
            <div className="w-48">
              <SubmitButton intent="portal" variant="secondary" testId="manage-billing">
                {b('page.manageBilling')}
              </SubmitButton>
            </div>
            <p className="text-sm text-slate-700">{b('page.manageBillingHint')}</p>
          </div>
        ) : null}
      </section>

      <section aria-labelledby="plans" className="mt-8">
        <h2 id="plans" className="text-lg font-semibold text-slate-900">
          {b('plans.title')}
        </h2>
        <div className="mt-4 grid gap-6 md:grid-cols-2">
          {prices.plans.map((plan) => {
            const current = plan.id === (pro ? 'pro' : 'free');
            const offerSubscribe = plan.id === 'pro' && (status === 'free' || status === 'canceled');
            return (
              <article
                key={plan.id}
                data-testid={`plan-${plan.id}`}
                aria-current={current ? 'true' : undefined}
                className={`flex flex-col rounded-2xl bg-white p-6 shadow-sm ring-1 ${current ? 'ring-2 ring-indigo-500' : 'ring-slate-200'}`}
              >
                <div className="flex items-center justify-between gap-2">
                  <h3 className="text-base font-semibold text-slate-900">{b(`plans.${plan.id}.name`)}</h3>
                  {current ? (
                    <span
                      className="rounded-full bg-indigo-50 px-2.5 py-0.5 text-xs font-semibold text-indigo-700 ring-1 ring-indigo-200"
                      data-testid="current-plan-marker"
                    >
                      {b('page.currentPlan')}
                    </span>
                  ) : null}
                </div>
                <p className="mt-1 text-sm text-slate-700">{b(`plans.${plan.id}.description`)}</p>
                <p className="mt-4 text-3xl font-bold text-slate-900">
                  {money(plan.price)} <span className="text-sm font-normal text-slate-700">{b('plans.perMonth')}</span>
                </p>
                <ul className="mt-4 flex-1 space-y-1 text-sm text-slate-800">
                  {plan.featureKeys.map((k) => (
                    <li key={k}>✓ {b(k, { count: plan.monthlyCredits })}</li>
                  ))}
                </ul>
                <div className="mt-6">
                  {offerSubscribe && status === 'free' && info.creditsRemaining > 0 ? (
                    <p className="mb-3 text-sm font-semibold text-amber-800" data-testid="free-credits-forfeit">
                      {b('page.forfeitFree', { count: info.creditsRemaining, pro: plan.monthlyCredits })}
                    </p>
                  ) : null}
                  {offerSubscribe ? (
                    <SubmitButton
                      intent="checkout"
                      priceId={plan.priceId}
                      disabled={!plan.priceId || !configured}
                      testId={`subscribe-${plan.id}`}
                    >
                      {!plan.priceId ? b('page.noPrice') : status === 'canceled' ? b('page.resubscribe') : b('page.subscribe')}
                    </SubmitButton>
                  ) : null}
                  {plan.id === 'pro' && status === 'pro' ? cancelPanel(b('page.cancel'), 'cancel-subscription') : null}
                  {plan.id === 'free' && status === 'pro' ? cancelPanel(b('page.downgrade'), 'downgrade') : null}
                </div>
              </article>
            );
          })}
        </div>
      </section>

      <section aria-labelledby="topups" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="topups" className="text-lg font-semibold text-slate-900">
          {b('topUps.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{b('topUps.description')}</p>
        {status !== 'pro' ? (
          <p className="mt-2 text-sm font-semibold text-amber-800" data-testid="topup-requires-pro">
            {b('topUps.requiresPro')}
          </p>
        ) : null}
        <div className="mt-4 grid gap-4 sm:grid-cols-3">
          {prices.topUpPlans.map((pack) => (
            <article key={pack.id} data-testid={`pack-${pack.id}`} className="rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200">
              <h3 className="font-semibold text-slate-900">{b('topUps.name', { count: pack.credits })}</h3>
              <p className="mt-1 text-2xl font-bold text-slate-900">
                {money(pack.price)} <span className="text-sm font-normal text-slate-700">{b('topUps.oneTime')}</span>
              </p>
              <div className="mt-3">
                <SubmitButton
                  intent="checkout"
                  priceId={pack.priceId}
                  disabled={status !== 'pro' || !pack.priceId || !configured}
                  testId={`buy-${pack.id}`}
                >
                  {pack.priceId ? b('topUps.buy') : b('page.noPrice')}
                </SubmitButton>
              </div>
            </article>
          ))}
        </div>
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
