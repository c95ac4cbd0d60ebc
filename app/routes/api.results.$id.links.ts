import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { relinkResult, resultLinks } from '~/services/internal-links.server';
import { getResult } from '~/services/results.server';
import { withApi } from '~/http/api-context.server';

// Internal links of one post. GET: its links (removed ones marked). POST: links it
// again as its run's settings say (removed links stay removed); no provider call, no credits.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => {
    const result = await getResult(ctx.user.id, params.id ?? '');
    return ctx.ok({ resultId: result.id, links: await resultLinks(ctx.user.id, result.id) });
  });
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const resultId = params.id ?? '';
      return ctx.ok({ resultId, ...(await relinkResult(ctx.user.id, resultId)) });
    },
    { methods: ['POST'], allow: 'GET, POST' },
  );
}
