import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { startFix } from '~/services/fixes/start.server';
import { getResult } from '~/services/results.server';
import { withApi } from '~/http/api-context.server';
import { idempotent } from '~/http/idempotency.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { resultForApi } from '~/utils/generation-errors';
import { resultFixSchema } from '~/utils/result-fix-schema';

// POST /api/results/{id}/fix {kind, section?, basis?, cost?}: a one-click fix of a completed text
// post, queued with its credit hold (charged when it succeeds) → 202 { fixId, credits, result }.
// Once per Idempotency-Key: a retried request never queues (or charges) a second fix.
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const input = await ctx.read(resultFixSchema(ctx.t));
      const id = params.id ?? '';
      return idempotent(request, ctx.user.id, { id, ...input }, async (tx) => {
        const fix = await startFix(ctx.user.id, id, input, tx);
        const result = resultForApi(ctx.t, await getResult(ctx.user.id, id, tx));
        return { status: 202, body: { success: true, fixId: fix.fixId, credits: fix.credits, result } };
      });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
