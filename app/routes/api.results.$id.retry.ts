import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { retryResult } from '~/services/generation/retry.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { resultForApi } from '~/utils/generation-errors';

// POST /api/results/{id}/retry (empty body): a new attempt with a new credit hold.
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const result = await retryResult(ctx.user.id, params.id ?? '');
      return ctx.ok({ success: true, result: resultForApi(ctx.t, result), jobId: result.runId });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
