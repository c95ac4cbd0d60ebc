import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { detectLanguage } from '~/i18n.server';
import { attemptRegister } from '~/services/auth.server';
import { clientKeyOf, tooManyJson } from '~/http/rate-limit-response.server';
import { registerSchema } from '~/utils/auth-schemas';
import { isHoneypotFilled } from '~/utils/honeypot';
import { apiError, methodNotAllowed, noStore, readApiInput, validationError } from '~/http/json-api.server';

// POST {name, email}. Creates the account and e-mails the set-password link; does not sign in.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request, context }: ActionFunctionArgs) {
  const input = await readApiInput(request, registerSchema);
  if (input instanceof Response) return input;
  const { t, body, parsed } = input;
  if (!parsed.success) return validationError(parsed.error);
  const ok = () => noStore({ message: t('register.successDescription') }, 201);
  if (isHoneypotFilled(body)) return ok();
  const outcome = await attemptRegister({ ...parsed.data, language: await detectLanguage(request), ip: clientKeyOf(context) });
  if (outcome.ok) return ok();
  if (outcome.reason === 'limited') return tooManyJson(request, outcome.state);
  return apiError(409, t('register.emailTaken'));
}
