import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { updateResultContent } from '~/services/results.server';
import { resultContentSchema } from '~/utils/generation-schema';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { resultForApi } from '~/utils/generation-errors';

// PUT /api/results/{id}/content { content, title?, seoTitle?, metaDescription?, slug?, focusKeyword? }
// → the result (its content sanitized again, a leading H1 taken as its title; the title and SEO
// fields given are stored, absent ones kept).
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const data = await ctx.read(resultContentSchema(ctx.t));
      return ctx.ok(resultForApi(ctx.t, await updateResultContent(ctx.user.id, params.id ?? '', data.content, data)));
    },
    { methods: ['PUT'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'PUT');
}
