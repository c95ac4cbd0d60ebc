import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { resetPassword } from '~/services/auth.server';
import { resetPasswordSchema } from '~/utils/auth-schemas';
import { isHoneypotFilled } from '~/utils/honeypot';
import { apiError, methodNotAllowed, noStore, readApiInput, validationError } from '~/http/json-api.server';

// POST {password, confirmPassword, token, email}. Uses the token up, ends the user's other
// sessions and signs this client in.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request }: ActionFunctionArgs) {
  const input = await readApiInput(request, resetPasswordSchema);
  if (input instanceof Response) return input;
  const { t, body, parsed } = input;
  if (!parsed.success) {
    const broken = parsed.error.issues.some((i) => i.path[0] === 'token' || i.path[0] === 'email');
    return broken ? apiError(400, t('errors.invalidResetParams')) : validationError(parsed.error);
  }
  if (isHoneypotFilled(body)) return noStore({ message: t('reset.done') });
  const outcome = await resetPassword(parsed.data);
  if (!outcome.ok) return apiError(400, outcome.reason === 'expired' ? t('reset.tokenExpired') : t('reset.tokenInvalid'));
  // The link proved the address: the answer signs the client in (every other session has ended).
  return noStore({ message: t('reset.done') }, { headers: { 'Set-Cookie': outcome.setCookie } });
}
