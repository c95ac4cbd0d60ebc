import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { deleteResult, getResult } from '~/services/results.server';
import { withApi } from '~/http/api-context.server';
import { resultForApi } from '~/utils/generation-errors';

// GET /api/results/{id} → the result; DELETE removes it (a processing one is canceled and refunded).
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok(resultForApi(ctx.t, await getResult(ctx.user.id, params.id ?? ''))));
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      await deleteResult(ctx.user.id, params.id ?? '');
      return ctx.ok({ success: true });
    },
    { methods: ['DELETE'], allow: 'GET, DELETE' },
  );
}
