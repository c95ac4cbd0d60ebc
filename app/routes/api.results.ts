import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { clearResults, listResults } from '~/services/results.server';
import { resultsApiQuerySchema } from '~/utils/generation-schema';
import { resultForApi } from '~/utils/generation-errors';
import { withApi } from '~/http/api-context.server';
import { validationError } from '~/http/json-api.server';

// GET /api/results?page&limit&type&search → { results, pagination }; DELETE clears all
// (running items are canceled and refunded first). A failed result's `error` is in the request's
// language, with its `errorCode`.
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => {
    const parsed = resultsApiQuerySchema(ctx.t).safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!parsed.success) return validationError(parsed.error);
    const query = parsed.data;
    const page = await listResults(ctx.user.id, query);
    return ctx.ok({ ...page, results: page.results.map((r) => resultForApi(ctx.t, r)) });
  });
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok({ success: true, ...(await clearResults(ctx.user.id)) }), {
    methods: ['DELETE'],
    allow: 'GET, DELETE',
  });
}
