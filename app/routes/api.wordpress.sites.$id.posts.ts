import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { refreshSitePosts, sitePosts } from '~/services/internal-links.server';
import { methodNotAllowed, notFound, ok, serviceError, siteIdParam, wpApiContext } from '~/http/wordpress-api.server';

// Internal links (issue 26 §1): GET the site's cached published posts { refreshedAt, posts };
// POST reads them again from the site (bounded by LINK_SOURCE_MAX_POSTS) and answers the same.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const id = siteIdParam(params.id);
  if (id === null) return notFound(ctx);
  try {
    return ok(ctx, await sitePosts(ctx.user.id, id));
  } catch (error) {
    return serviceError(ctx, error);
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request, 'GET, POST');
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const id = siteIdParam(params.id);
  if (id === null) return notFound(ctx);
  try {
    await refreshSitePosts(ctx.user.id, id);
    return ok(ctx, await sitePosts(ctx.user.id, id));
  } catch (error) {
    return serviceError(ctx, error);
  }
}
