import type { LoaderFunctionArgs } from '@remix-run/node';
import { openApiResponse } from '~/http/api-docs.server';

// GET /api/openapi.json: the API's OpenAPI 3.1 document (public, cacheable).
export function loader({ request }: LoaderFunctionArgs) {
  return openApiResponse(request);
}
