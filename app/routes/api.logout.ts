import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { destroySession } from '~/services/sessions.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: POST with no body; deletes the session row and clears the cookie.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const clearCookie = await destroySession(request);
  const t = await getT(request, 'auth');
  return json({ message: t('logout.description') }, { headers: { 'Set-Cookie': clearCookie, 'Cache-Control': 'no-store' } });
}
