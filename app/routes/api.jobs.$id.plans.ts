import type { LoaderFunctionArgs } from '@remix-run/node';
import { getRunProgress } from '~/services/generation/progress.server';
import { listRunPlans } from '~/services/generation/plans.server';
import { withApi } from '~/http/api-context.server';

// GET /api/jobs/{id}/plans → the plans of a plan-first run, in topic order.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => {
    const run = await getRunProgress(ctx.user.id, params.id ?? '');
    return ctx.ok({ plans: await listRunPlans(ctx.user.id, run.id) });
  });
}
