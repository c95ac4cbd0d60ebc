import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { siteCategories } from '~/services/wordpress.server';
import { methodNotAllowed, notFound, ok, serviceError, siteIdParam, wpApiContext } from '~/http/wordpress-api.server';

// SPEC §7: the site's categories { categories: [{ id, name }] }, read from the site itself.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const id = siteIdParam(params.id);
  if (id === null) return notFound(ctx);
  try {
    return ok(ctx, { categories: await siteCategories(ctx.user.id, id) });
  } catch (error) {
    return serviceError(ctx, error);
  }
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
