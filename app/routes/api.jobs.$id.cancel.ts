import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { cancelRun } from '~/services/generation.server';
import { ok, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/jobs/{id}/cancel: items not yet started end canceled, their credits released.
export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => ok(await cancelRun(user.userId, params.id ?? ''), user));
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
