import { Form, useNavigation } from '@remix-run/react';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '~/components/icons';
import { buttonClass } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';
import { showToast } from '~/components/ui/toast';
import { ImageViewer, type ViewedImage } from './image-viewer';
import { Pagination } from './pagination';
import { RunProgressBar, type RunProgressView } from './progress-bar';
import { BulkPublishBar } from '~/components/wordpress/bulk-select';
import { ResultItem } from './result-item';
import { ResultRowsProvider } from './result-rows';
import type { ResultView, WordPressView } from './result-view';
import { downloadAllUrl, RESULTS_ACTION, resultsHref, runUrl, type ResultsFilter, type ResultsView, type ReviewFilter } from './urls';
import { useRevalidateWhile } from './use-revalidate-while';

export { resultsHref, type ResultsFilter, type ResultsView, type ReviewFilter };
import { ImageGrid } from './image-grid';
import { AppLink } from '~/components/ui/app-link';

export type ResultsPanelProps = {
  results: ResultView[];
  pagination: { page: number; totalPages: number; total: number };
  filter: ResultsFilter;
  search: string;
  view: ResultsView;
  review?: ReviewFilter;
  /** The run being watched (the latest one), with its live counts. */
  run: RunProgressView | null;
  /** Completed items of the filter and search, for Download all. */
  completed: { text: number; images: number };
  /** WordPress publishing (feat/wp): publish links, selection for bulk publishing, publication states. */
  wordpress?: WordPressView;
};

export function ResultsPanel({ results, pagination, filter, search, view, review = null, run, completed, wordpress }: ResultsPanelProps) {
  const { t } = useTranslation('workspace');
  const navigation = useNavigation();
  const [viewed, setViewed] = useState<ViewedImage | null>(null);
  const closeViewer = useCallback(() => setViewed(null), []);
  const grid = filter === 'image' && view === 'grid';
  // With the page's script, a running fix's post updates in place when it is done.
  useRevalidateWhile(results.some((r) => r.fix?.status === 'processing'));
  const returnTo = resultsHref({ filter, search, view, review, page: pagination.page });
  const clearing = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'clear';
  const canceling = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'cancel';
  const hasCompleted = completed.text + completed.images > 0;
  const bulk =
    wordpress?.canPublish && wordpress.hasSites && results.some((r) => r.status === 'completed' && r.type === 'text' && r.content);

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-col gap-4 lg:flex-row lg:items-center lg:justify-between">
        <nav aria-label={t('results.filter.label')}>
          <ul className="inline-flex rounded-lg bg-slate-100 p-1">
            {(['all', 'text', 'image'] as const).map((f) => (
              <li key={f}>
                <AppLink
                  to={resultsHref({ filter: f, search })}
                  preventScrollReset
                  aria-current={f === filter ? 'page' : undefined}
                  className={`inline-flex rounded-md px-4 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                    f === filter ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-700 hover:text-slate-900'
                  }`}
                >
                  {t(`results.filter.${f}`)}
                </AppLink>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-label={t('quality.filter.label')}>
          <ul className="inline-flex rounded-lg bg-slate-100 p-1">
            {([null, 'needs', 'approved'] as const).map((r) => (
              <li key={r ?? 'all'}>
                <AppLink
                  to={resultsHref({ filter, search, review: r })}
                  preventScrollReset
                  aria-current={r === review ? 'page' : undefined}
                  className={`inline-flex rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                    r === review ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-700 hover:text-slate-900'
                  }`}
                >
                  {t(`quality.filter.${r ?? 'all'}`)}
                </AppLink>
              </li>
            ))}
          </ul>
        </nav>
        {/* A GET form: search works without JavaScript; a new search starts at page 1. */}
        <Form method="get" action="/app" role="search" className="flex gap-2">
          <input type="hidden" name="tab" value="results" />
          {filter !== 'all' ? <input type="hidden" name="type" value={filter} /> : null}
          {review ? <input type="hidden" name="review" value={review} /> : null}
          {grid ? <input type="hidden" name="view" value="grid" /> : null}
          <label htmlFor="results-search" className="sr-only">
            {t('results.search.label')}
          </label>
          <input
            id="results-search"
            name="search"
            type="search"
            defaultValue={search}
            key={search}
            placeholder={t('results.search.placeholder')}
            className={`${inputClass} sm:w-72`}
          />
          <button type="submit" className={buttonClass('secondary', 'md')}>
            {t('results.search.submit')}
          </button>
        </Form>
      </div>

      {run ? (
        <div className="flex flex-col gap-2 rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200" data-testid="results-run">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm font-semibold text-slate-900">
              {run.status === 'processing'
                ? t('progress.running')
                : run.status === 'canceled'
                  ? t('progress.canceled')
                  : t('progress.done')}
            </p>
            {run.status === 'processing' ? (
              <div className="flex flex-wrap items-center gap-3">
                <AppLink to={runUrl(run.id)} className="text-sm font-semibold text-indigo-700 hover:underline">
                  {t('progress.title')}
                </AppLink>
                {/* Cancel where the run's items are shown; the run page answers, then comes back here. */}
                <Form method="post" action={runUrl(run.id)} preventScrollReset>
                  <input type="hidden" name="intent" value="cancel" />
                  <input type="hidden" name="returnTo" value={resultsHref({ filter, search, view, page: pagination.page })} />
                  <button type="submit" className={buttonClass('secondary', 'sm')} disabled={canceling}>
                    {canceling ? t('progress.canceling') : t('progress.cancel')}
                  </button>
                </Form>
              </div>
            ) : null}
          </div>
          <RunProgressBar run={run} />
        </div>
      ) : null}

      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-700" data-testid="results-total">
          {t('results.summary', { count: pagination.total })}
        </p>
        <div className="flex flex-wrap items-start gap-2">
          {filter === 'image' ? (
            <nav aria-label={t('results.view.label')}>
              <ul className="inline-flex rounded-lg bg-slate-100 p-0.5">
                {(['list', 'grid'] as const).map((v) => (
                  <li key={v}>
                    <AppLink
                      to={resultsHref({ filter, search, view: v })}
                      preventScrollReset
                      aria-current={(grid ? 'grid' : 'list') === v ? 'page' : undefined}
                      className={`inline-flex items-center gap-1.5 rounded-md px-3 py-1 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                        (grid ? 'grid' : 'list') === v ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-700 hover:text-slate-900'
                      }`}
                    >
                      <Icon name={v} className="size-4" />
                      {t(`results.view.${v}`)}
                    </AppLink>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          {hasCompleted ? (
            <a
              href={downloadAllUrl({ filter, search })}
              download
              className={buttonClass('secondary', 'sm')}
              onClick={() =>
                showToast({
                  type: 'success',
                  title: t('toasts.downloadComplete'),
                  description: t('toasts.downloadedAll', { text: completed.text, images: completed.images }),
                })
              }
            >
              {t('results.actions.downloadAll')}
            </a>
          ) : pagination.total > 0 || filter !== 'all' || search ? (
            // Download all takes what the list shows: say so when none of it is completed.
            <p className="self-center text-sm text-slate-600" data-testid="download-none">
              {filter !== 'all' || search ? t('results.actions.downloadNoneMatch') : t('results.actions.downloadNone')}
            </p>
          ) : null}
          {review === 'needs' && results.length > 0 ? (
            <Form method="post" action={RESULTS_ACTION}>
              <input type="hidden" name="intent" value="approveAll" />
              <input type="hidden" name="returnTo" value={returnTo} />
              <button type="submit" className={buttonClass('secondary', 'sm')} data-testid="approve-all">
                {t('quality.approveAll')}
              </button>
            </Form>
          ) : null}
          {pagination.total > 0 ? (
            <details className="relative">
              <summary
                className={`${buttonClass('secondary', 'sm')} cursor-pointer list-none text-red-700 [&::-webkit-details-marker]:hidden`}
              >
                {t('results.actions.clearAll')}
              </summary>
              <div className="absolute right-0 z-20 mt-2 w-72 rounded-xl bg-white p-4 shadow-lg ring-1 ring-slate-900/10">
                <p className="text-sm text-slate-700">{t('results.actions.clearAllConfirm')}</p>
                <Form method="post" action={RESULTS_ACTION} className="mt-3">
                  <input type="hidden" name="intent" value="clear" />
                  {/* Back to the same Text/Images filter (and view), emptied. */}
                  <input type="hidden" name="returnTo" value={resultsHref({ filter, search: '', view })} />
                  <button type="submit" className={buttonClass('destructive', 'sm', 'w-full')} disabled={clearing}>
                    {t('results.actions.clearAllYes')}
                  </button>
                </Form>
              </div>
            </details>
          ) : null}
        </div>
      </div>

      {bulk ? <BulkPublishBar /> : null}

      {results.length && grid ? (
        <ImageGrid results={results} onView={setViewed} />
      ) : results.length ? (
        <ResultRowsProvider returnTo={returnTo} onView={setViewed} wordpress={wordpress}>
          <ul className="flex flex-col gap-3" data-testid="results-list">
            {results.map((r) => (
              <ResultItem key={r.id} result={r} />
            ))}
          </ul>
        </ResultRowsProvider>
      ) : (
        <div className="py-10 text-center">
          <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-700">
            <Icon name="layers" className="size-6" />
          </span>
          <h2 className="mt-4 text-lg font-semibold text-slate-900">{search ? t('results.noMatch') : t('results.empty')}</h2>
          {search ? null : <p className="mx-auto mt-2 max-w-md text-sm text-slate-700">{t('results.emptyBody')}</p>}
        </div>
      )}

      <Pagination
        page={pagination.page}
        totalPages={pagination.totalPages}
        hrefFor={(page) => resultsHref({ filter, search, view, review, page })}
      />
      {viewed ? <ImageViewer image={viewed} onClose={closeViewer} /> : null}
    </div>
  );
}
