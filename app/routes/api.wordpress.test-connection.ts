import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { testConnection } from '~/services/wordpress.server';
import { testConnectionSchema } from '~/utils/wordpress-schemas';
import { connectionMessage, methodNotAllowed, ok, readBody, wpApiContext } from '~/http/wordpress-api.server';

// SPEC §7: POST { siteUrl, username, appPassword } → { success, message } plus a diagnosis
// { code, hint, detail } when it failed.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const body = await readBody(request, testConnectionSchema(ctx.t));
  if (body instanceof Response) return body;
  return ok(ctx, connectionMessage(ctx.t, await testConnection(body.value)));
}
