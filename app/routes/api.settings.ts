import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { json } from '@remix-run/node';
import { saveSettingsAndKeys, settingsView } from '~/services/user-settings.server';
import { apiUser, inputsT, noStore } from '~/http/input-api.server';
import { methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import { settingsRequestSchema } from '~/utils/settings-request';
import { themeCookieHeader } from '~/utils/theme.server';

// SPEC §7 GET /api/settings → { settings } (keys masked, never in full); POST the settings fields.
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  return noStore({ settings: await settingsView(user.id) });
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request, 'GET, POST');
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const parsed = settingsRequestSchema.safeParse(body);
  if (!parsed.success) return validationError(parsed.error);
  await saveSettingsAndKeys(user.id, parsed.data);
  const settings = await settingsView(user.id);
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  headers.append('Set-Cookie', themeCookieHeader(settings.darkMode));
  return json({ settings, message: (await inputsT(request))('settings.updated') }, { headers });
}
