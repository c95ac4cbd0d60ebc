import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { generateTitles } from '~/services/titles.server';
import { tooManyJson } from '~/http/rate-limit-response.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { titleRequestSchema } from '~/utils/title-request';

// POST /api/generate-blog-title: single → { title }, multiple → { titles } by position.
export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'inputs',
    async (ctx) => {
      const { keywords, multiple, options } = await ctx.read(titleRequestSchema(ctx.t));
      const result = await generateTitles(ctx.user, keywords, options);
      if (!result.ok) {
        if (result.reason === 'limited') return tooManyJson(request, result.state);
        if (result.reason === 'notConfigured') return ctx.error(503, ctx.t('titles.notConfigured'));
        return ctx.error(502, ctx.t('titles.failedBody'));
      }
      return multiple ? ctx.ok({ titles: result.titles }) : ctx.ok({ title: result.titles[0]! });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
