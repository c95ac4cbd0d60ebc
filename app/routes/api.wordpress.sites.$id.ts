import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { deleteSite, getSite, updateSite } from '~/services/wordpress/sites.server';
import { siteUpdateSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { siteIdParam } from '~/http/wordpress-api.server';

// PUT /api/wordpress/sites/{id} (same fields; a blank appPassword keeps the stored one),
// DELETE /api/wordpress/sites/{id}. Another user's site is 404.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => ctx.ok({ site: await getSite(ctx.user.id, siteIdParam(params.id)) }));
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const id = siteIdParam(params.id);
      if (request.method === 'DELETE') {
        await deleteSite(ctx.user.id, id);
        return ctx.ok({ success: true });
      }
      return ctx.ok({ site: await updateSite(ctx.user.id, id, await ctx.read(siteUpdateSchema(ctx.t))) });
    },
    { methods: ['PUT', 'DELETE'], allow: 'GET, PUT, DELETE' },
  );
}
