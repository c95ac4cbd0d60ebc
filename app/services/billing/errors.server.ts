import type Stripe from 'stripe';
import { BillingNotConfigured, getStripe } from '~/services/stripe.server';
import { AppError } from '~/utils/app-error';

// The refusals billing gives (each with its message key) and the Stripe client as billing reaches it:
// unset keys become the not_configured refusal a user can read.

export const BILLING_ERROR_CODES = [
  'not_configured',
  'unknown_price',
  'requires_pro',
  'already_subscribed',
  'no_active_subscription',
  'no_customer',
  'not_found',
  'not_paid',
] as const;
export type BillingErrorCode = (typeof BILLING_ERROR_CODES)[number];

/** Each code's message in the `billing` namespace. */
const BILLING_ERROR_KEYS: Record<BillingErrorCode, string> = {
  not_configured: 'errors.notConfigured',
  unknown_price: 'errors.unknownPrice',
  requires_pro: 'errors.requiresPro',
  already_subscribed: 'errors.alreadySubscribed',
  no_active_subscription: 'errors.noActiveSubscription',
  no_customer: 'errors.noCustomer',
  not_found: 'errors.sessionNotFound',
  not_paid: 'errors.notPaid',
};

export class BillingError extends AppError<'billing', BillingErrorCode> {
  constructor(code: BillingErrorCode, message: string) {
    super('billing', code, BILLING_ERROR_KEYS[code], message);
    this.name = 'BillingError';
  }
}

export function notConfigured(): never {
  throw new BillingError('not_configured', new BillingNotConfigured().message);
}

export function stripe(): Stripe {
  try {
    return getStripe();
  } catch (err) {
    if (err instanceof BillingNotConfigured) notConfigured();
    throw err;
  }
}
