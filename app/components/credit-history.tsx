import { useTranslation } from 'react-i18next';
import { DataTable, type Column } from '~/components/ui/data-table';
import { formatDate, formatTime, useTimeZone } from '~/utils/time-zone';
import { AppLink } from '~/components/ui/app-link';

// The user's ledger rows on /subscription: newest first, 20 a page, plain links for paging and
// the CSV download, so it all works without JavaScript.

export type CreditHistoryRow = {
  seq: number;
  createdAt: string;
  kind: string;
  delta: number;
  amount: number;
  balanceAfter: number;
  bucket: 'monthly' | 'topup';
};

export type CreditHistoryData = { rows: CreditHistoryRow[]; page: number; pageCount: number; total: number };

/** The page's URL with ?historyPage=N, keeping the other query parameters (e.g. success banners). */
function pageHref(search: string, page: number) {
  const params = new URLSearchParams(search);
  params.set('historyPage', String(page));
  return `/subscription?${params.toString()}#credit-history`;
}

export function CreditHistory({
  history,
  search = '',
  csvHref = '/subscription/history.csv',
}: {
  history: CreditHistoryData;
  search?: string;
  csvHref?: string;
}) {
  const { t, i18n } = useTranslation('ledger');
  const timeZone = useTimeZone();
  const number = (n: number) => n.toLocaleString(i18n.language);
  const signed = (n: number) => (n > 0 ? `+${number(n)}` : n < 0 ? `−${number(-n)}` : '0');
  const columns: Column<CreditHistoryRow>[] = [
    {
      key: 'date',
      header: t('history.date'),
      headerClassName: 'py-2 pr-2 font-medium sm:pr-4',
      className: 'py-2 pr-2 text-slate-700 sm:pr-4',
      cell: (row) => (
        <time dateTime={row.createdAt} className="flex flex-col sm:flex-row sm:gap-1.5">
          <span className="whitespace-nowrap">{formatDate(row.createdAt, i18n.language, timeZone)}</span>
          <span className="whitespace-nowrap">{formatTime(row.createdAt, i18n.language, timeZone)}</span>
        </time>
      ),
    },
    {
      key: 'activity',
      header: t('history.activity'),
      headerClassName: 'py-2 pr-2 font-medium sm:pr-4',
      className: 'py-2 pr-2 text-slate-900 sm:pr-4',
      cell: (row) => (
        <>
          {t(`history.kinds.${row.kind}`)}
          <span className="block text-xs text-slate-600 sm:ml-2 sm:inline">{t(`history.buckets.${row.bucket}`)}</span>
        </>
      ),
    },
    {
      key: 'change',
      header: t('history.change'),
      headerClassName: 'py-2 pr-2 text-right font-medium sm:pr-4',
      className: (row) =>
        `whitespace-nowrap py-2 pr-2 text-right tabular-nums sm:pr-4 ${row.delta > 0 ? 'text-emerald-700' : row.delta < 0 ? 'text-rose-700' : 'text-slate-600'}`,
      cell: (row) => (row.kind === 'post' ? `${number(row.amount)} ${t('history.settled')}` : signed(row.delta)),
    },
    {
      key: 'balance',
      header: t('history.balanceAfter'),
      headerClassName: 'py-2 text-right font-medium',
      className: 'whitespace-nowrap py-2 text-right tabular-nums text-slate-900',
      cell: (row) => number(row.balanceAfter),
    },
  ];

  return (
    <section
      id="credit-history"
      aria-labelledby="credit-history-title"
      className="mt-8 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:p-6"
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="credit-history-title" className="text-lg font-semibold text-slate-900">
            {t('history.title')}
          </h2>
          <p className="mt-1 text-sm text-slate-700">{t('history.description')}</p>
        </div>
        <a
          href={csvHref}
          download={t('history.csvFile')}
          className="inline-flex items-center rounded-lg px-3 py-1.5 text-sm font-semibold text-indigo-700 ring-1 ring-indigo-200 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          data-testid="credit-history-csv"
        >
          {t('history.download')}
        </a>
      </div>

      {history.rows.length === 0 ? (
        <p className="mt-6 text-sm text-slate-700">{t('history.empty')}</p>
      ) : (
        <div className="mt-6 overflow-x-auto">
          {/* On a phone the cells wrap (date over time, activity over bucket) so every column fits. */}
          <DataTable
            className="w-full text-left text-sm"
            testId="credit-history"
            rows={history.rows}
            rowKey={(row) => row.seq}
            columns={columns}
          />
        </div>
      )}

      {history.pageCount > 1 ? (
        <nav aria-label={t('history.pagination')} className="mt-4 flex items-center justify-between gap-3 text-sm">
          {history.page > 1 ? (
            <AppLink
              to={pageHref(search, history.page - 1)}
              preventScrollReset
              className="font-semibold text-indigo-700 hover:underline"
              rel="prev"
            >
              {t('history.previous')}
            </AppLink>
          ) : (
            <span aria-hidden="true" />
          )}
          <span className="text-slate-700">{t('history.page', { page: history.page, pageCount: history.pageCount })}</span>
          {history.page < history.pageCount ? (
            <AppLink
              to={pageHref(search, history.page + 1)}
              preventScrollReset
              className="font-semibold text-indigo-700 hover:underline"
              rel="next"
            >
              {t('history.next')}
            </AppLink>
          ) : (
            <span aria-hidden="true" />
          )}
        </nav>
      ) : null}
    </section>
  );
}
