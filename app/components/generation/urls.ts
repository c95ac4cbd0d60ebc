// The backend's download routes (resource routes of the generation backend).
export const resultDownloadUrl = (id: string, index?: number) => `/api/results/${id}/download${index ? `?index=${index}` : ''}`;
/** Download all for the Results tab's filter and search (the list as shown). */
export const downloadAllUrl = ({ filter, search }: { filter: 'all' | 'text' | 'image'; search: string }) => {
  const params = new URLSearchParams();
  if (filter !== 'all') params.set('type', filter);
  if (search) params.set('search', search);
  const query = params.toString();
  return `/api/results/download-all${query ? `?${query}` : ''}`;
};
/** Where every result mutation posts (app/routes/app_.results.tsx). */
export const RESULTS_ACTION = '/app/results';
export const runUrl = (id: string) => `/app/runs/${id}`;

/** The list URL's parameters that open a row's part without JavaScript: a result's editor, a fix's confirm step. */
export const EDIT_PARAM = 'edit';
export const FIX_PARAM = 'fix';

/**
 * The list at `returnTo` with one more parameter, scrolled to `anchor`: how a row's part opens
 * without JavaScript (the editor's `edit=<id>`, a fix's confirm step).
 */
export function listHrefWith(returnTo: string, param: string, value: string, anchor: string): string {
  const [path, query = ''] = returnTo.split('?');
  const params = new URLSearchParams(query);
  params.set(param, value);
  return `${path}?${params}#${anchor}`;
}

export type ResultsFilter = 'all' | 'text' | 'image';
/** The review list: posts whose quality report failed and are not approved, or those approved. */
export type ReviewFilter = 'needs' | 'approved' | null;
/** How image results are laid out: the list of rows, or a grid of thumbnails (Images filter only). */
export type ResultsView = 'list' | 'grid';

/** The /app URL of the results tab for a filter, search, view and page (defaults are left out). */
export function resultsHref({
  filter,
  search,
  page,
  view,
  review,
}: {
  filter: ResultsFilter;
  search: string;
  page?: number;
  view?: ResultsView;
  review?: ReviewFilter;
}) {
  const params = new URLSearchParams({ tab: 'results' });
  if (filter !== 'all') params.set('type', filter);
  if (review) params.set('review', review);
  if (search) params.set('search', search);
  if (filter === 'image' && view === 'grid') params.set('view', 'grid');
  if (page && page > 1) params.set('page', String(page));
  return `/app?${params}`;
}
