import { json } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { BillingError, type BillingErrorCode } from '~/services/billing.server';
import type { CurrentSession } from '~/services/sessions.server';
import { apiError } from '~/http/json-api.server';

// Glue between the billing service's typed errors and the JSON routes / the page's toasts.

const STATUS: Record<BillingErrorCode, number> = {
  not_configured: 503,
  unknown_price: 400,
  requires_pro: 403,
  already_subscribed: 409,
  no_active_subscription: 400,
  no_customer: 404,
  not_found: 404,
  not_paid: 409,
};

const KEYS: Record<BillingErrorCode, string> = {
  not_configured: 'errors.notConfigured',
  unknown_price: 'errors.unknownPrice',
  requires_pro: 'errors.requiresPro',
  already_subscribed: 'errors.alreadySubscribed',
  no_active_subscription: 'errors.noActiveSubscription',
  no_customer: 'errors.noCustomer',
  not_found: 'errors.sessionNotFound',
  not_paid: 'errors.notPaid',
};

/** The user's language text for a billing error (a BillingError, or the generic checkout failure). */
export async function billingErrorMessage(request: Request, err: unknown): Promise<string> {
  const t = await getT(request, 'billing');
  return err instanceof BillingError ? t(KEYS[err.code]) : t('errors.checkoutFailed');
}

/** A JSON error for a BillingError; anything else is rethrown. */
export async function billingApiError(request: Request, err: unknown): Promise<Response> {
  if (!(err instanceof BillingError)) throw err;
  return apiError(STATUS[err.code], await billingErrorMessage(request, err), { headers: { 'X-Billing-Error': err.code } });
}

/** The signed-in session (or API token) for a JSON route, or the 401 to return. */
export { apiSession } from '~/http/api-session.server';

export function noStore(data: unknown, session?: CurrentSession, status = 200) {
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  if (session?.setCookie) headers.append('Set-Cookie', session.setCookie);
  return json(data, { status, headers });
}
