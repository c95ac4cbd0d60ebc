import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getLastUsed, saveLastUsed } from '~/services/user-settings.server';
import { apiUser, noStore } from '~/http/input-api.server';
import { methodNotAllowed, readJsonObject } from '~/http/json-api.server';

// SPEC §7 PATCH /api/user/settings: the last-used values (SPEC §3 User settings). Invalid fields are
// left out rather than failing (the client only logs a failure); GET reads them back.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  return noStore({ settings: await getLastUsed(user.id) });
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'PATCH' && request.method !== 'POST') return methodNotAllowed(request, 'GET, PATCH');
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  return noStore({ settings: await saveLastUsed(user.id, body) });
}
