import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { toApiUser } from '~/services/auth.server';
import { apiHeaders, apiSession } from '~/http/api-session.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: the current user; 401 means "not signed in".
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  return json(await toApiUser(session.user), { headers: apiHeaders(session) });
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
