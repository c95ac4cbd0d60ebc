import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { maskedApiKeys, saveApiKeys } from '~/services/api-keys.server';
import { apiUser, noStore } from '~/http/input-api.server';
import { methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import { apiKeysSchema } from '~/utils/settings-request';

// SPEC §7 POST /api/api-keys: blank keys are not saved, null removes one; the answer holds masks only.
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const user = await apiUser(request);
  if (user instanceof Response) return user;
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const parsed = apiKeysSchema.safeParse(body);
  if (!parsed.success) return validationError(parsed.error);
  await saveApiKeys(user.id, parsed.data);
  return noStore({ keys: await maskedApiKeys(user.id) });
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'POST');
}
