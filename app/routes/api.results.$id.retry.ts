import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { retryResult } from '~/services/results.server';
import { ok, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: POST /api/results/{id}/retry (empty body): a new attempt with a new credit hold.
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => {
    const result = await retryResult(user.userId, params.id ?? '');
    return ok({ success: true, result, jobId: result.runId }, user);
  });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
