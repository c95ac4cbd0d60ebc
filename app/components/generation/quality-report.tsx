import { Form } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { buttonClass } from '~/components/ui/button';
import type { QualityCheck } from '~/utils/quality/check';
import type { QualityReport } from '~/utils/quality/report';
import { RESULTS_ACTION } from './urls';

// A text result's quality report on its row: a badge, the checks that did not pass (one line each,
// with the figure), the whole report in a <details> (no script needed), and Approve while it
// needs review.

type Translate = (key: string, options?: Record<string, unknown>) => string;

const badgeClass = {
  pass: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  warn: 'bg-amber-50 text-amber-900 ring-amber-600/20',
  fail: 'bg-red-50 text-red-800 ring-red-600/20',
} as const;

const list = (t: Translate, group: string, items: unknown) =>
  (Array.isArray(items) ? items : []).map((i) => t(`quality.${group}.${String(i)}`)).join(', ');

/** One check as a sentence with its figure, in the reader's language. */
export function checkLine(t: Translate, check: QualityCheck): string {
  const p = check.params;
  switch (check.id) {
    case 'length':
      return t(p.unit === 'characters' ? 'quality.checks.lengthCharacters' : 'quality.checks.length', {
        measured: p.measured,
        target: p.target,
      });
    case 'sections':
      if (Array.isArray(p.missing) && p.missing.length)
        return t('quality.checks.sectionsMissing', { list: list(t, 'sections', p.missing) });
      if (Array.isArray(p.unwanted) && p.unwanted.length)
        return t('quality.checks.sectionsUnwanted', { list: list(t, 'sections', p.unwanted) });
      return t('quality.checks.sections');
    case 'keyword':
      if (!p.keyword) return t('quality.checks.keywordNone');
      if (Array.isArray(p.missing) && p.missing.length)
        return t('quality.checks.keywordMissing', { keyword: p.keyword, list: list(t, 'places', p.missing) });
      return t('quality.checks.keyword', { keyword: p.keyword, found: list(t, 'places', p.found) });
    case 'reading_level':
      return p.grade === null
        ? t('quality.checks.readingLevelNone')
        : t('quality.checks.readingLevel', { grade: p.grade, requested: p.requested });
    case 'language':
      return check.status === 'not_measured'
        ? t('quality.checks.languageNone')
        : t('quality.checks.language', { detected: p.detected, requested: p.requested });
    case 'duplicates': {
      if (p.similarity === null) return t('quality.checks.duplicatesNone');
      const percent = Math.round(Number(p.similarity) * 100);
      return p.closest && percent > 0
        ? t('quality.checks.duplicatesClosest', { closest: p.closest, percent })
        : t('quality.checks.duplicates', { percent });
    }
    case 'repetition':
      return p.fillerPerThousand === null
        ? t('quality.checks.repetition', { sentences: p.repeatedSentences, paragraphs: p.repeatedParagraphs })
        : t('quality.checks.repetitionFiller', {
            sentences: p.repeatedSentences,
            paragraphs: p.repeatedParagraphs,
            filler: p.fillerPerThousand,
            unit: t(`quality.units.${String(p.fillerUnit)}`),
          });
  }
}

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
