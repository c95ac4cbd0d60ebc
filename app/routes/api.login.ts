import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { toApiUser } from '~/services/auth.server';
import { login } from '~/services/authenticator.server';
import { destroySession } from '~/services/sessions.server';
import { clientKeyOf, tooManyJson } from '~/http/rate-limit-response.server';
import { loginSchema } from '~/utils/auth-schemas';
import { isHoneypotFilled } from '~/utils/honeypot';
import { apiError, methodNotAllowed, noStore, readApiInput, validationError } from '~/http/json-api.server';

// POST {email, password} → the user object, with the session cookie.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request, context }: ActionFunctionArgs) {
  const input = await readApiInput(request, loginSchema);
  if (input instanceof Response) return input;
  const { t, body, parsed } = input;
  if (!parsed.success) return validationError(parsed.error);
  if (isHoneypotFilled(body)) return apiError(401, t('errors.invalidCredentials'));
  const outcome = await login(parsed.data, clientKeyOf(context));
  if (outcome.kind === 'limited') return tooManyJson(request, outcome.state);
  if (outcome.kind === 'invalid') return apiError(401, t('errors.invalidCredentials'));
  await destroySession(request); // the request's old session, if any, ends
  return noStore(await toApiUser(outcome.user), { headers: { 'Set-Cookie': outcome.setCookie } });
}
