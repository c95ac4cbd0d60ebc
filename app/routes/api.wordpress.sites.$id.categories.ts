import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { siteCategories } from '~/services/wordpress/sites.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { siteIdParam } from '~/http/wordpress-api.server';

// The site's categories { categories: [{ id, name }] }, read from the site itself.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => ctx.ok({ categories: await siteCategories(ctx.user.id, siteIdParam(params.id)) }));
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
