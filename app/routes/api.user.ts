import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { toApiUser } from '~/services/auth.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// The current user; 401 means "not signed in".
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'auth', async (ctx) => ctx.ok(await toApiUser(ctx.user)));
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
