import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { listScheduled } from '~/services/wordpress.server';
import { methodNotAllowed, ok, wpApiContext } from '~/http/wordpress-api.server';

// What is waiting to be published (soonest first) and what recently finished or failed.
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const { waiting, recent } = await listScheduled(ctx.user.id);
  return ok(ctx, { scheduled: waiting, recent });
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
