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
