import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { toApiUser } from '~/services/auth.server';
import { login } from '~/services/authenticator.server';
import { tooManyJson } from '~/services/rate-limit.server';
import { loginSchema } from '~/utils/auth-schemas';
import { isHoneypotFilled } from '~/utils/honeypot';
import { apiError, methodNotAllowed, readApiInput, validationError } from '~/utils/json-api.server';

// SPEC §7: POST {email, password} → the user object, with the session cookie.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request, context }: ActionFunctionArgs) {
  const input = await readApiInput(request, loginSchema);
  if (input instanceof Response) return input;
  const { t, body, parsed } = input;
  if (!parsed.success) return validationError(parsed.error);
  if (isHoneypotFilled(body)) return apiError(401, t('errors.invalidCredentials'));
  const outcome = await login(request, context, parsed.data);
  if (outcome.kind === 'limited') return tooManyJson(request, outcome.state);
  if (outcome.kind === 'invalid') return apiError(401, t('errors.invalidCredentials'));
  return json(await toApiUser(outcome.user), { headers: { 'Set-Cookie': outcome.setCookie, 'Cache-Control': 'no-store' } });
}
