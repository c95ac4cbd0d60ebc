import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { deleteResult, getResult } from '~/services/results.server';
import { ok, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { methodNotAllowed } from '~/http/json-api.server';

// GET /api/results/{id} → the result; DELETE removes it (a processing one is canceled and refunded).
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => ok(await getResult(user.userId, params.id ?? ''), user));
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'DELETE') return methodNotAllowed(request, 'GET, DELETE');
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => {
    await deleteResult(user.userId, params.id ?? '');
    return ok({ success: true }, user);
  });
}
