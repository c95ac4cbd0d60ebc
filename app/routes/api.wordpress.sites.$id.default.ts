import type { ActionFunctionArgs } from '@remix-run/node';
import { setDefaultSite } from '~/services/wordpress.server';
import { methodNotAllowed, notFound, ok, serviceError, siteIdParam, wpApiContext } from '~/http/wordpress-api.server';

// SPEC §7: PUT /api/wordpress/sites/{id}/default, empty body.
export async function loader({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'PUT');
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'PUT') return methodNotAllowed(request, 'PUT');
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const id = siteIdParam(params.id);
  if (id === null) return notFound(ctx);
  try {
    return ok(ctx, { site: await setDefaultSite(ctx.user.id, id) });
  } catch (error) {
    return serviceError(ctx, error);
  }
}
