import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { buttonClass } from '~/components/ui/button';
import { checkLine } from '~/utils/quality/check-text';
import type { QualityReport } from '~/utils/quality/report';
import { RESULTS_ACTION } from './urls';

// A text result's quality report on its row: a badge, the checks that did not pass (one line each,
// with the figure), the whole report in a <details> (no script needed), and Approve while it
// needs review.

const badgeClass = {
  pass: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  warn: 'bg-amber-50 text-amber-900 ring-amber-600/20',
  fail: 'bg-red-50 text-red-800 ring-red-600/20',
} as const;

export function QualityReportView({
  resultId,
  report,
  approvedAt,
  held,
  returnTo,
  approving,
}: {
  resultId: string;
  report: QualityReport;
  approvedAt: string | null;
  held: boolean;
  returnTo: string;
  approving: boolean;
}) {
  const { t } = useTranslation('workspace');
  const flagged = report.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  return (
    <div className="flex flex-col gap-1.5 text-sm" data-testid="quality-report" data-status={report.status}>
      <div className="flex flex-wrap items-center gap-2">
        <span className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${badgeClass[report.status]}`}>
          {t(`quality.badge.${report.status}`)}
        </span>
        {approvedAt ? <span className="text-xs font-medium text-emerald-800">{t('quality.approved')}</span> : null}
        {report.status === 'fail' && !approvedAt ? (
          <Form method="post" action={RESULTS_ACTION}>
            <input type="hidden" name="intent" value="approve" />
            <input type="hidden" name="id" value={resultId} />
            <input type="hidden" name="returnTo" value={returnTo} />
            <button type="submit" className={buttonClass('secondary', 'sm')} disabled={approving}>
              {t('quality.approve')}
            </button>
          </Form>
        ) : null}
      </div>
      {held && !approvedAt ? <p className="text-xs text-amber-900">{t('quality.held')}</p> : null}
      {flagged.length ? (
        <ul className="list-disc pl-5 text-slate-700" data-testid="quality-flagged">
          {flagged.map((c) => (
            <li key={c.id} data-check={c.id} data-status={c.status}>
              <span className="font-medium">{t(`quality.status.${c.status}`)}:</span> {checkLine(t, c)}
            </li>
          ))}
        </ul>
      ) : null}
      <details className="text-slate-700">
        <summary className="cursor-pointer text-xs font-medium text-indigo-700">{t('quality.details')}</summary>
        <ul className="mt-1 list-disc pl-5">
          {report.checks.map((c) => (
            <li key={c.id}>
              <span className="font-medium">{t(`quality.status.${c.status}`)}:</span> {checkLine(t, c)}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
