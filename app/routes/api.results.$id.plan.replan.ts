import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { replan } from '~/services/generation/plans.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/results/{id}/plan/replan: a planned post is planned again (same held credits).
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok(await replan(ctx.user.id, params.id ?? '')), { methods: ['POST'] });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
