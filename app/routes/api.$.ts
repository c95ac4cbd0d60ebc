import { json } from '@remix-run/node';

// Any /api/* path no endpoint claims: a JSON 404 for API clients, never the HTML not-found page.
const notFound = () => json({ error: 'Not found' }, { status: 404, headers: { 'Cache-Control': 'no-store' } });

export const loader = notFound;
export const action = notFound;
