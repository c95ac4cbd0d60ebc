import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { startGeneration } from '~/http/generation-start.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/generate/image (image payload) → { jobId }.
export async function action({ request }: ActionFunctionArgs) {
  return startGeneration(request, 'image');
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
