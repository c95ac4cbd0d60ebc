import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { listScheduled } from '~/services/wordpress/schedules.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// What is waiting to be published (soonest first) and what recently finished or failed.
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => {
    const { waiting, recent } = await listScheduled(ctx.user.id);
    return ctx.ok({ scheduled: waiting, recent });
  });
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
