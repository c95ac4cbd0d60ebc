import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AppShell } from '~/components/app-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Button } from '~/components/ui/button';
import { Field } from '~/components/ui/field';
import { getCreditSummary } from '~/services/ledger.server';
import { parseExportForm } from '~/services/ledger-admin.server';
import { currentSeq } from '~/services/ledger-export.server';
import { verifyLedger, type VerifyReport } from '~/services/ledger-verify.server';
import { exportFormOf, requireAdmin } from '~/utils/admin.server';
import { rootT } from '~/utils/meta';

// Admin only (404 for anyone else): the finance export as downloads and the verify report.
// Both are reads, so both are GET forms; verify runs only when asked (?verify=1).
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const { errors } = await parseExportForm(exportFormOf(request));
  const [credits, until] = await Promise.all([getCreditSummary(admin.id), currentSeq()]);
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
    },
    { headers: { 'Cache-Control': 'private, no-store' } },
  );
}

export default function AdminLedger() {
  const { user, credits, form, errors, until, report } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation('ledger');
  const err = (name: 'from' | 'to' | 'user') => (errors[name] ? [t(`admin.${errors[name]}`)] : null);

  return (
    <AppShell user={user} credits={credits}>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('admin.title')}</h1>
      <p className="mt-1 text-sm text-slate-700">{t('admin.description')}</p>

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
                <table className="mt-3 min-w-full text-left text-sm">
                  <thead className="border-b border-slate-200 text-slate-700">
                    <tr>
                      <th scope="col" className="py-2 pr-4 font-medium">
                        {t('admin.check')}
                      </th>
                      <th scope="col" className="py-2 pr-4 font-medium">
                        {t('admin.row')}
                      </th>
                      <th scope="col" className="py-2 font-medium">
                        {t('admin.problem')}
                      </th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {report.problems.map((p, i) => (
                      <tr key={i}>
                        <td className="py-2 pr-4 font-mono text-xs">{p.check}</td>
                        <td className="py-2 pr-4 tabular-nums">{p.seq ?? '—'}</td>
                        <td className="py-2 font-mono text-xs">{p.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </div>
        ) : null}
      </section>
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'admin.metaTitle', 'ledger') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
