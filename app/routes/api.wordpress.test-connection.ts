import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { testConnection } from '~/services/wordpress/sites.server';
import { testConnectionSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { connectionMessage } from '~/http/wordpress-api.server';

// POST { siteUrl, username, appPassword } → { success, message } plus a diagnosis
// { code, hint, detail } when it failed.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => ctx.ok(connectionMessage(ctx.t, await testConnection(await ctx.read(testConnectionSchema(ctx.t))))),
    {
      methods: ['POST'],
    },
  );
}
