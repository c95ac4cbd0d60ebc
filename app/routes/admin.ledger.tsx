import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Button } from '~/components/ui/button';
import { DataTable, type Column } from '~/components/ui/data-table';
import { Field } from '~/components/ui/field';
import { getT } from '~/i18n.server';
import { acknowledgeFlag, listFinanceFlags, type FlagState } from '~/services/billing-flags.server';
import { CLOSE_NOTE_MAX } from '~/services/billing/admin-actions.server';
import { closeDuplicateRefund, retryDuplicateRefund } from '~/services/billing/duplicates.server';
import { closeShortfallRecovery, retryShortfallRecovery } from '~/services/billing/shortfalls.server';
import { getCreditSummary } from '~/services/ledger.server';
import { parseExportForm, recentStripeRows } from '~/services/ledger-admin.server';
import { currentSeq } from '~/services/ledger-export.server';
import { verifyLedger, type VerifyReport } from '~/services/ledger-verify.server';
import { exportFormOf, requireAdmin } from '~/http/admin.server';
import { rootT } from '~/utils/meta';
import { formatDateTime } from '~/utils/time-zone';
import { redirectWithToast } from '~/http/toast.server';
import { readFormData } from '~/http/json-api.server';
import { AppLink } from '~/components/ui/app-link';

// Admin only (404 for anyone else): the finance flags (open ones to acknowledge), the latest
// payment rows with their money, the finance export as downloads and the verify report. The
// export and verify are reads, so GET forms; verify runs only when asked (?verify=1).
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const flagState: FlagState = params.get('flags') === 'acknowledged' ? 'acknowledged' : 'open';
  const { errors } = await parseExportForm(exportFormOf(request));
  const [credits, until, flags, payments] = await Promise.all([
    getCreditSummary(admin.id),
    currentSeq(),
    listFinanceFlags(flagState),
    recentStripeRows(),
  ]);
  let report: VerifyReport | null = null;
  if (params.get('verify') === '1') {
    report = await verifyLedger();
  }
  return json(
    {
      user: { name: admin.name, email: admin.email, subscriptionStatus: admin.subscriptionStatus },
      credits: credits.totalCreditsRemaining,
      form: { from: params.get('from') ?? '', to: params.get('to') ?? '', user: params.get('user') ?? '' },
      errors,
      until,
      report,
      flagState,
      flags,
      payments,
    },
    { headers: { 'Cache-Control': 'private, no-store' } },
  );
}

/**
 * The flag forms: acknowledge a flag; retry or close (with a note) a money action whose attempts
 * are spent: a duplicate subscription's refund (named by its subscription) or a refund's shortfall
 * (named by its flag's ref).
 */
const actionSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('acknowledge'), flagId: z.coerce.number().int().positive() }),
  z.object({ intent: z.literal('retryRefund'), target: z.string().min(1).max(255) }),
  z.object({ intent: z.literal('closeRefund'), target: z.string().min(1).max(255), note: z.string().trim().min(1).max(CLOSE_NOTE_MAX) }),
  z.object({ intent: z.literal('retryShortfall'), target: z.string().min(1).max(500) }),
  z.object({ intent: z.literal('closeShortfall'), target: z.string().min(1).max(500), note: z.string().trim().min(1).max(CLOSE_NOTE_MAX) }),
]);

/** The flag forms (POST: they work without JavaScript; the server refuses cross-site posts), then back to the flags. */
export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  const t = await getT(request, 'ledger');
  const form = await readFormData(request);
  const back = '/admin/ledger#finance-flags';
  const submission = form instanceof Response ? null : parseWithZod(form, { schema: actionSchema });
  if (submission?.status !== 'success') return redirectWithToast(back, { type: 'error', title: t('admin.flags.failed') });
  const v = submission.value;
  let done: boolean;
  switch (v.intent) {
    case 'acknowledge':
      done = await acknowledgeFlag(v.flagId, admin.id);
      break;
    case 'retryRefund':
      done = await retryDuplicateRefund(v.target, admin.id);
      break;
    case 'closeRefund':
      done = await closeDuplicateRefund(v.target, admin.id, v.note);
      break;
    case 'retryShortfall':
      done = await retryShortfallRecovery(v.target, admin.id);
      break;
    case 'closeShortfall':
      done = await closeShortfallRecovery(v.target, admin.id, v.note);
      break;
  }
  const ok = v.intent === 'acknowledge' ? 'admin.flags.done' : v.intent.startsWith('retry') ? 'admin.flags.retried' : 'admin.flags.closed';
  return redirectWithToast(back, done ? { type: 'success', title: t(ok) } : { type: 'error', title: t('admin.flags.failed') });
}

export default function AdminLedger() {
  const { user, credits, form, errors, until, report, flagState, flags, payments } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation('ledger');
  const err = (name: 'from' | 'to' | 'user') => (errors[name] ? [t(`admin.${errors[name]}`)] : null);
  // Finance reads the ledger in UTC, named as such.
  const time = (iso: string) => formatDateTime(iso, i18n.language, 'UTC');
  // Minor units as the currency's money (cents → dollars), the raw figure beside it for finance.
  const money = (currency: string | null, minor: number | null) => {
    if (minor === null) return '—';
    if (!currency) return t('admin.flags.noCurrency', { minor });
    try {
      const format = new Intl.NumberFormat(i18n.language, { style: 'currency', currency: currency.toUpperCase() });
      const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
      return `${format.format(minor / 10 ** digits)} (${minor})`;
    } catch {
      return `${minor} ${currency.toUpperCase()}`;
    }
  };
  const th = 'py-2 pr-4 font-medium';
  const td = 'py-2 pr-4';
  type Flag = (typeof flags.flags)[number];
  type Payment = (typeof payments)[number];
  type Problem = NonNullable<typeof report>['problems'][number];
  const flagColumns: Column<Flag>[] = [
    {
      key: 'when',
      header: t('admin.flags.when'),
      headerClassName: th,
      className: `${td} whitespace-nowrap`,
      cell: (f) => time(f.createdAt),
    },
    {
      key: 'kind',
      header: t('admin.flags.kind'),
      headerClassName: th,
      className: td,
      cell: (f) => (
        <>
          {t(`admin.flags.kinds.${f.kind}`, { defaultValue: f.kind })}
          {f.refund ? (
            <span className="block text-xs text-slate-700" data-refund-state={f.refund.state}>
              {t(`admin.flags.refundStates.${f.refund.state}`, {
                attempts: f.refund.attempts,
                error: f.refund.lastError ?? '—',
                note: f.refund.closeNote ?? '',
              })}
            </span>
          ) : null}
          {f.recovery ? (
            <span className="block text-xs text-slate-700" data-recovery-state={f.recovery.state}>
              {t(`admin.flags.recoveryStates.${f.recovery.state}`, {
                attempts: f.recovery.attempts,
                error: f.recovery.lastError
                  ? t(`admin.flags.recoveryErrors.${f.recovery.lastError}`, { defaultValue: f.recovery.lastError })
                  : '—',
                short: f.recovery.creditsShort,
                recovered: f.recovery.creditsRecovered,
                left: f.recovery.creditsShort - f.recovery.creditsRecovered,
                note: f.recovery.closeNote ?? '',
              })}
            </span>
          ) : null}
          {f.lastAction ? (
            <span className="block text-xs text-slate-700" data-last-action={f.lastAction.action}>
              {t(`admin.flags.actions.${f.lastAction.action}`, {
                who: f.lastAction.by ?? '—',
                when: time(f.lastAction.at),
                note: f.lastAction.note ?? '',
                defaultValue: f.lastAction.action,
              })}
            </span>
          ) : null}
          {f.refund?.state === 'failed' ? <SettleForms kind="Refund" target={f.refund.subscriptionId} flagRef={f.ref} /> : null}
          {f.recovery?.state === 'failed' ? <SettleForms kind="Shortfall" target={f.ref} flagRef={f.ref} /> : null}
        </>
      ),
    },
    { key: 'user', header: t('admin.user'), headerClassName: th, className: td, cell: (f) => f.userEmail ?? '—' },
    {
      key: 'amount',
      header: t('admin.flags.amount'),
      headerClassName: th,
      className: `${td} tabular-nums`,
      cellProps: (f) => ({ 'data-currency': f.currency ?? '', 'data-amount-minor': f.amountMinor ?? '' }),
      cell: (f) => money(f.currency, f.amountMinor),
    },
    {
      key: 'cumulative',
      header: t('admin.flags.refundedSoFar'),
      headerClassName: th,
      className: `${td} tabular-nums`,
      cellProps: (f) => ({ 'data-cumulative-minor': f.cumulativeMinor ?? '' }),
      cell: (f) => money(f.currency, f.cumulativeMinor),
    },
    {
      key: 'shortfall',
      header: t('admin.flags.shortfall'),
      headerClassName: th,
      className: `${td} tabular-nums`,
      cell: (f) => f.shortfall ?? '—',
    },
    {
      key: 'ref',
      header: t('admin.flags.reference'),
      headerClassName: th,
      className: `${td} font-mono text-xs break-all`,
      cell: (f) => f.ref,
    },
    {
      key: 'state',
      header: <span className="sr-only">{t('admin.flags.state')}</span>,
      headerClassName: 'py-2 font-medium',
      className: 'py-2',
      cell: (f) =>
        f.acknowledgedAt ? (
          <span className="text-xs text-slate-700">
            {t('admin.flags.acknowledgedBy', { who: f.acknowledgedBy ?? '—', when: time(f.acknowledgedAt) })}
          </span>
        ) : (
          <Form method="post">
            <input type="hidden" name="intent" value="acknowledge" />
            <input type="hidden" name="flagId" value={f.id} />
            <Button type="submit" variant="secondary" aria-label={t('admin.flags.acknowledgeLabel', { ref: f.ref })}>
              {t('admin.flags.acknowledge')}
            </Button>
          </Form>
        ),
    },
  ];
  const paymentColumns: Column<Payment>[] = [
    { key: 'seq', header: t('admin.row'), headerClassName: th, className: `${td} tabular-nums`, cell: (p) => p.seq },
    {
      key: 'when',
      header: t('admin.flags.when'),
      headerClassName: th,
      className: `${td} whitespace-nowrap`,
      cell: (p) => time(p.createdAt),
    },
    {
      key: 'kind',
      header: t('admin.flags.kind'),
      headerClassName: th,
      className: td,
      cell: (p) => t(`history.kinds.${p.kind}`, { defaultValue: p.kind }),
    },
    { key: 'user', header: t('admin.user'), headerClassName: th, className: td, cell: (p) => p.userEmail },
    { key: 'credits', header: t('admin.payments.credits'), headerClassName: th, className: `${td} tabular-nums`, cell: (p) => p.credits },
    {
      key: 'amount',
      header: t('admin.flags.amount'),
      headerClassName: th,
      className: `${td} tabular-nums`,
      cellProps: (p) => ({ 'data-currency': p.currency ?? '', 'data-amount-minor': p.amountMinor ?? '' }),
      cell: (p) => money(p.currency, p.amountMinor),
    },
    {
      key: 'stripe',
      header: t('admin.payments.stripe'),
      headerClassName: 'py-2 font-medium',
      className: 'py-2 font-mono text-xs break-all',
      cell: (p) => p.stripeIds.join(' '),
    },
  ];
  const problemColumns: Column<Problem>[] = [
    { key: 'check', header: t('admin.check'), headerClassName: th, className: `${td} font-mono text-xs`, cell: (p) => p.check },
    { key: 'row', header: t('admin.row'), headerClassName: th, className: `${td} tabular-nums`, cell: (p) => p.seq ?? '—' },
    {
      key: 'problem',
      header: t('admin.problem'),
      headerClassName: 'py-2 font-medium',
      className: 'py-2 font-mono text-xs',
      cell: (p) => p.message,
    },
  ];

  return (
    <AppShell user={user} credits={credits}>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('admin.title')}</h1>
      <p className="mt-1 text-sm text-slate-700">{t('admin.description')}</p>

      <section aria-labelledby="finance-flags" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="finance-flags" className="text-lg font-semibold text-slate-900">
          {t('admin.flags.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('admin.flags.help')}</p>
        <nav aria-label={t('admin.flags.title')} className="mt-4 flex gap-2 text-sm">
          {(['open', 'acknowledged'] as const).map((state) => (
            <AppLink
              key={state}
              to={`/admin/ledger?flags=${state}#finance-flags`}
              aria-current={flagState === state ? 'page' : undefined}
              className={`rounded-lg px-3 py-1.5 font-medium ${
                flagState === state ? 'bg-indigo-50 text-indigo-700' : 'text-slate-700 hover:bg-slate-100'
              }`}
            >
              {t(state === 'open' ? 'admin.flags.openTab' : 'admin.flags.acknowledgedTab', { count: flags.counts[state] })}
            </AppLink>
          ))}
        </nav>
        {flags.flags.length === 0 ? (
          <p className="mt-4 text-sm text-slate-700" data-testid="finance-flags-empty">
            {t(flagState === 'open' ? 'admin.flags.noneOpen' : 'admin.flags.noneAcknowledged')}
          </p>
        ) : (
          <div className="mt-4 overflow-x-auto">
            <DataTable
              className="min-w-full text-left text-sm"
              testId="finance-flags"
              rows={flags.flags}
              rowKey={(f) => f.id}
              rowProps={(f) => ({ 'data-flag-id': f.id })}
              columns={flagColumns}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="stripe-payments" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="stripe-payments" className="text-lg font-semibold text-slate-900">
          {t('admin.payments.title')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('admin.payments.help')}</p>
        {payments.length === 0 ? (
          <p className="mt-4 text-sm text-slate-700">{t('admin.payments.none')}</p>
        ) : (
          <div className="mt-4 overflow-x-auto">
            <DataTable
              className="min-w-full text-left text-sm"
              testId="stripe-payments"
              rows={payments}
              rowKey={(p) => p.seq}
              columns={paymentColumns}
            />
          </div>
        )}
      </section>

      <section aria-labelledby="ledger-export" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="ledger-export" className="text-lg font-semibold text-slate-900">
          {t('admin.exportTitle')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('admin.exportHelp')}</p>
        <Form method="get" action="/admin/ledger/export.csv" reloadDocument className="mt-4 grid gap-4 sm:grid-cols-3">
          <input type="hidden" name="until" value={until} />
          <Field label={t('admin.from')} inputProps={{ name: 'from', type: 'date', defaultValue: form.from }} errors={err('from')} />
          <Field label={t('admin.to')} inputProps={{ name: 'to', type: 'date', defaultValue: form.to }} errors={err('to')} />
          <Field
            label={t('admin.user')}
            inputProps={{ name: 'user', type: 'email', defaultValue: form.user, autoComplete: 'off' }}
            errors={err('user')}
          />
          <div className="flex flex-wrap gap-3 sm:col-span-3">
            <Button type="submit" data-testid="ledger-export-csv">
              {t('admin.downloadCsv')}
            </Button>
            <Button type="submit" variant="secondary" formAction="/admin/ledger/manifest.json">
              {t('admin.downloadManifest')}
            </Button>
          </div>
        </Form>
      </section>

      <section aria-labelledby="ledger-verify" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h2 id="ledger-verify" className="text-lg font-semibold text-slate-900">
          {t('admin.verifyTitle')}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t('admin.verifyHelp')}</p>
        <Form method="get" className="mt-4">
          <input type="hidden" name="verify" value="1" />
          <Button type="submit" variant="secondary">
            {t('admin.runVerify')}
          </Button>
        </Form>
        {report ? (
          <div className="mt-4" role="status" data-testid="ledger-verify-report">
            {report.ok ? (
              <p className="text-sm font-semibold text-emerald-700">
                {t('admin.verifyOk', {
                  rows: report.rows.toLocaleString(i18n.language),
                  users: report.users.toLocaleString(i18n.language),
                  sum: report.systemSum ?? 0,
                })}
              </p>
            ) : (
              <>
                <p className="text-sm font-semibold text-rose-700">{t('admin.verifyFailed', { count: report.problems.length })}</p>
                <DataTable
                  className="mt-3 min-w-full text-left text-sm"
                  rows={report.problems}
                  rowKey={(_, i) => i}
                  columns={problemColumns}
                />
              </>
            )}
          </div>
        ) : null}
      </section>
    </AppShell>
  );
}

/** Retry (start the attempts over) or close with a note (settled by hand), for a money action whose attempts are spent. */
function SettleForms({ kind, target, flagRef }: { kind: 'Refund' | 'Shortfall'; target: string; flagRef: string }) {
  const { t } = useTranslation('ledger');
  return (
    <div className="mt-2 flex flex-col gap-2" data-testid={`settle-${kind.toLowerCase()}`}>
      <Form method="post">
        <input type="hidden" name="intent" value={`retry${kind}`} />
        <input type="hidden" name="target" value={target} />
        <Button type="submit" variant="secondary" aria-label={t(`admin.flags.retry${kind}Label`, { ref: flagRef })}>
          {t(`admin.flags.retry${kind}`)}
        </Button>
      </Form>
      <Form method="post" className="flex flex-col gap-1">
        <input type="hidden" name="intent" value={`close${kind}`} />
        <input type="hidden" name="target" value={target} />
        <label className="text-xs font-medium text-slate-900">
          {t(`admin.flags.close${kind}Note`)}
          <textarea
            name="note"
            required
            maxLength={CLOSE_NOTE_MAX}
            rows={2}
            className="mt-1 block w-full rounded-md border border-slate-300 px-2 py-1 text-sm"
          />
        </label>
        <Button type="submit" variant="secondary" aria-label={t(`admin.flags.close${kind}Label`, { ref: flagRef })}>
          {t(`admin.flags.close${kind}`)}
        </Button>
      </Form>
    </div>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'admin.metaTitle', 'ledger') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
