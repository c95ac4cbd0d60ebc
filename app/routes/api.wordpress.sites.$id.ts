import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { deleteSite, getSite, updateSite } from '~/services/wordpress.server';
import { siteUpdateSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, notFound, ok, readBody, serviceError, siteIdParam, wpApiContext } from '~/http/wordpress-api.server';

// SPEC §7: PUT /api/wordpress/sites/{id} (same fields; a blank appPassword keeps the stored one),
// DELETE /api/wordpress/sites/{id}. Another user's site is 404.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const id = siteIdParam(params.id);
  if (id === null) return notFound(ctx);
  try {
    return ok(ctx, { site: await getSite(ctx.user.id, id) });
  } catch (error) {
    return serviceError(ctx, error);
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'PUT' && request.method !== 'DELETE') return methodNotAllowed(request, 'GET, PUT, DELETE');
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const id = siteIdParam(params.id);
  if (id === null) return notFound(ctx);
  try {
    if (request.method === 'DELETE') {
      await deleteSite(ctx.user.id, id);
      return ok(ctx, { success: true });
    }
    const body = await readBody(request, siteUpdateSchema(ctx.t));
    if (body instanceof Response) return body;
    return ok(ctx, { site: await updateSite(ctx.user.id, id, body.value) });
  } catch (error) {
    return serviceError(ctx, error);
  }
}
