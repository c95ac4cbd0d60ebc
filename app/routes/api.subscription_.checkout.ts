import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { languages } from '~/i18n';
import { createCheckout } from '~/services/billing.server';
import { apiSession, billingApiError, noStore } from '~/http/billing.server';
import { methodNotAllowed, readApiInput, validationError } from '~/http/json-api.server';

const schema = () =>
  z.object({
    priceId: z.string().trim().min(1, 'priceId is required').max(255),
    language: z.enum(languages).optional().catch(undefined),
  });

// SPEC §7: POST { priceId, language } → { url } of Stripe Checkout (the browser goes there).
export async function action({ request }: ActionFunctionArgs) {
  const input = await readApiInput(request, schema);
  if (input instanceof Response) return input;
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  if (!input.parsed.success) return validationError(input.parsed.error);
  try {
    const { url, sessionId } = await createCheckout(
      session.user,
      input.parsed.data.priceId,
      input.parsed.data.language ?? session.user.language,
    );
    return noStore({ url, sessionId }, session);
  } catch (err) {
    return billingApiError(request, err);
  }
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
