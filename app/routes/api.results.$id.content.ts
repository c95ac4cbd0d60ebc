import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { updateResultContent } from '~/services/results.server';
import { resultContentSchema } from '~/utils/generation-schema';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: PUT /api/results/{id}/content { content } → the result (its content sanitized again).
export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const { content } = await ctx.read(resultContentSchema(ctx.t));
      return ctx.ok(await updateResultContent(ctx.user.id, params.id ?? '', content));
    },
    { methods: ['PUT'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'PUT');
}
