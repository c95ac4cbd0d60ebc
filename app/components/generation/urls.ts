// The backend's download routes (resource routes of the generation backend).
export const resultDownloadUrl = (id: string, index?: number) => `/api/results/${id}/download${index ? `?index=${index}` : ''}`;
export const DOWNLOAD_ALL_URL = '/api/results/download-all';
/** Where every result mutation posts (app/routes/app_.results.tsx). */
export const RESULTS_ACTION = '/app/results';
export const runUrl = (id: string) => `/app/runs/${id}`;
