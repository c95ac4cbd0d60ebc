import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { detectLanguage } from '~/i18n.server';
import { attemptPasswordResetRequest } from '~/services/auth.server';
import { clientKeyOf, tooManyJson } from '~/http/rate-limit-response.server';
import { forgotPasswordSchema } from '~/utils/auth-schemas';
import { isHoneypotFilled } from '~/utils/honeypot';
import { methodNotAllowed, noStore, readApiInput, validationError } from '~/http/json-api.server';

// POST {email}. The same answer whether or not the address has an account.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request, context }: ActionFunctionArgs) {
  const input = await readApiInput(request, forgotPasswordSchema);
  if (input instanceof Response) return input;
  const { t, body, parsed } = input;
  if (!parsed.success) return validationError(parsed.error);
  const sent = () => noStore({ message: t('forgot.sentText') });
  if (isHoneypotFilled(body)) return sent();
  const outcome = await attemptPasswordResetRequest({
    email: parsed.data.email,
    language: await detectLanguage(request),
    ip: clientKeyOf(context),
  });
  if (!outcome.ok) return tooManyJson(request, outcome.state);
  return sent();
}
