import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { cancelPublication, getPublication, reschedulePublication } from '~/services/wordpress.server';
import { rescheduleSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, ok, readBody, serviceError, wpApiContext } from '~/http/wordpress-api.server';

// One publication: GET it, PUT { publishAt } moves a waiting one, DELETE cancels it.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  try {
    return ok(ctx, { publication: await getPublication(ctx.user.id, params.id ?? '') });
  } catch (error) {
    return serviceError(ctx, error);
  }
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'PUT' && request.method !== 'DELETE') return methodNotAllowed(request, 'GET, PUT, DELETE');
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  try {
    if (request.method === 'DELETE') return ok(ctx, { publication: await cancelPublication(ctx.user.id, params.id ?? '') });
    const body = await readBody(request, rescheduleSchema(ctx.t));
    if (body instanceof Response) return body;
    return ok(ctx, { publication: await reschedulePublication(ctx.user.id, params.id ?? '', new Date(body.value.publishAt)) });
  } catch (error) {
    return serviceError(ctx, error);
  }
}
