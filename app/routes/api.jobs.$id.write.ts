import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getRunProgress } from '~/services/generation/progress.server';
import { writePlans } from '~/services/generation/plans.server';
import { writePlansSchema } from '~/utils/plan-schema';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/jobs/{id}/write { resultIds? } → the run: its planned posts named (all when none is)
// are written from their plans; each is charged its held credits once written.
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const run = await getRunProgress(ctx.user.id, params.id ?? '');
      const { resultIds } = await ctx.read(writePlansSchema());
      const queued = await writePlans(ctx.user.id, run.id, resultIds ?? null);
      return ctx.ok({ queued, job: await getRunProgress(ctx.user.id, run.id) });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
