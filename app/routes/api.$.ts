import { apiError } from '~/http/json-api.server';

// Any /api/* path no endpoint claims: a JSON 404 for API clients, never the HTML not-found page.
const notFound = () => apiError(404, 'Not found');

export const loader = notFound;
export const action = notFound;
