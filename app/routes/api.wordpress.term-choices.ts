import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { chooseTermsPerPost } from '~/services/wordpress/term-choices.server';
import { termChoicesSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST { siteId, resultIds } → the model's categories and tags per result, among the site's own,
// for review: { categories, tags, choices: [{ resultId, title, categories, tags }], failed }.
// Nothing is published; the reviewed choices go to POST /api/wordpress/publish-bulk as `perPost`.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const input = await ctx.read(termChoicesSchema(ctx.t));
      return ctx.ok(await chooseTermsPerPost(ctx.user.id, input.siteId, input.resultIds));
    },
    { methods: ['POST'] },
  );
}
