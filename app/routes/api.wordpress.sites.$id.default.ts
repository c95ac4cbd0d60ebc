import type { ActionFunctionArgs } from '@remix-run/node';
import { setDefaultSite } from '~/services/wordpress/sites.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { siteIdParam } from '~/http/wordpress-api.server';

// PUT /api/wordpress/sites/{id}/default, empty body.
export async function loader({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'PUT');
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => ctx.ok({ site: await setDefaultSite(ctx.user.id, siteIdParam(params.id)) }), {
    methods: ['PUT'],
  });
}
