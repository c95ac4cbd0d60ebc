import type { LoaderFunctionArgs } from '@remix-run/node';
import { apiDocsResponse } from '~/http/api-docs.server';

// GET /api/docs: the API reference, server-rendered HTML from the OpenAPI document (works without JavaScript).
export function loader({ request }: LoaderFunctionArgs) {
  return apiDocsResponse(request);
}
