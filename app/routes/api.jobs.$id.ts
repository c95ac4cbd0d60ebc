import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getRunProgress } from '~/services/generation.server';
import { ok, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: GET /api/jobs/{id} → { totalPrompts, completedPrompts, failedPrompts, status } (owner only).
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => ok(await getRunProgress(user.userId, params.id ?? ''), user));
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
