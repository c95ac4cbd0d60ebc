import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { refreshSitePosts, sitePosts } from '~/services/internal-links.server';
import { withApi } from '~/http/api-context.server';
import { siteIdParam } from '~/http/wordpress-api.server';

// Internal links: GET the site's cached published posts { refreshedAt, posts };
// POST reads them again from the site (bounded by LINK_SOURCE_MAX_POSTS) and answers the same.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => ctx.ok(await sitePosts(ctx.user.id, siteIdParam(params.id))));
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const id = siteIdParam(params.id);
      await refreshSitePosts(ctx.user.id, id);
      return ctx.ok(await sitePosts(ctx.user.id, id));
    },
    { methods: ['POST'], allow: 'GET, POST' },
  );
}
