import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { cancelRun } from '~/services/generation/cancel.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/jobs/{id}/cancel: items not yet started end canceled, their credits released.
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok(await cancelRun(ctx.user.id, params.id ?? '')), { methods: ['POST'] });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
