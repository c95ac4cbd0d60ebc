import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { toApiUser } from '~/services/auth.server';
import { getSession } from '~/services/sessions.server';
import { apiError, methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: the current user; 401 means "not signed in".
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request);
  if (!session) return apiError(401, (await getT(request, 'auth'))('errors.unauthenticated'));
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  if (session.setCookie) headers.append('Set-Cookie', session.setCookie);
  return json(await toApiUser(session.user), { headers });
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
