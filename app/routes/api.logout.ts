import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { destroySession } from '~/services/sessions.server';
import { methodNotAllowed, noStore } from '~/http/json-api.server';

// POST with no body; deletes the session row and clears the cookie.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const clearCookie = await destroySession(request);
  const t = await getT(request, 'auth');
  return noStore({ message: t('logout.description') }, { headers: { 'Set-Cookie': clearCookie } });
}
