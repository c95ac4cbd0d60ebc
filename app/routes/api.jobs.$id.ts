import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getRunProgress } from '~/services/generation/progress.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// GET /api/jobs/{id} → { totalPrompts, completedPrompts, failedPrompts, status } (owner only).
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok(await getRunProgress(ctx.user.id, params.id ?? '')));
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
