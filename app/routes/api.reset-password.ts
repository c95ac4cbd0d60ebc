import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { resetPassword } from '~/services/auth.server';
import { getSession } from '~/services/sessions.server';
import { resetPasswordSchema, type Translate } from '~/utils/auth-schemas';
import { isHoneypotFilled } from '~/utils/honeypot';
import { apiError, methodNotAllowed, readJsonObject, validationError } from '~/utils/json-api.server';

// SPEC §7: POST {password, confirmPassword, token, email}. Uses the token up; ends the user's other sessions.
export const loader = ({ request }: LoaderFunctionArgs) => methodNotAllowed(request);

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const t = (await getT(request, 'auth')) as Translate;
  const parsed = resetPasswordSchema(t).safeParse(body);
  if (!parsed.success) {
    const broken = parsed.error.issues.some((i) => i.path[0] === 'token' || i.path[0] === 'email');
    return broken ? apiError(400, t('errors.invalidResetParams')) : validationError(parsed.error);
  }
  if (isHoneypotFilled(body)) return json({ message: t('reset.done') });
  const session = await getSession(request);
  const outcome = await resetPassword({ ...parsed.data, keepSessionId: session?.id });
  if (!outcome.ok) return apiError(400, outcome.reason === 'expired' ? t('reset.tokenExpired') : t('reset.tokenInvalid'));
  return json({ message: t('reset.done') });
}
