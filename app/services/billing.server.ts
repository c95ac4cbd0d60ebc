import type Stripe from 'stripe';
import { sql, transaction, type Db, type TransactionSql } from '../../db/client';
import { enqueueMany } from '~/queue/boss';
import { queues } from '~/queue/queues';
import { duplicateRefundState, type DuplicateRefundState } from '~/services/duplicate-refund-state.server';
import { plans, topUpPacks, type SubscriptionStatus, type TopUpId } from '~/catalogue';
import {
  expireMonthly,
  findPaymentEntry,
  forfeitTopUp,
  getCurrentCreditSummary,
  grantMonthly,
  isPeriodGranted,
  purchaseTopUp,
  refundReversalsOf,
  reverseRefund,
  type LedgerEntry,
  type StripeOrigin,
} from '~/services/ledger.server';
import { refundStepsOf, type RefundStep } from '~/services/refund-steps.server';
import { BillingNotConfigured, findPrice, getStripe, priceIdOf, stripeLocale } from '~/services/stripe.server';
import { loadEnv } from '~/runtime/env.server';
import { AppError } from '~/utils/app-error';

// Billing: Checkout, the customer portal, cancellation, and the fulfilment of what Stripe reports.
// Every booking goes through the ledger with a key naming the business object (the invoice period,
// the checkout session, the subscription's end), never the event, so the webhook, the return page
// and retries can arrive in any order, any number of times, and book each thing once. Each change
// runs in one transaction that first locks the user's row (then the ledger locks its own rows), so
// two deliveries for one user apply one after the other. No lock is held across a call to Stripe.

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

export type BillingUser = { id: string; email: string; name: string; subscriptionStatus: SubscriptionStatus };

type Outcome = { outcome: 'applied' | 'ignored' | 'refused'; detail?: string };
const applied = (detail?: string): Outcome => ({ outcome: 'applied', detail });
const ignored = (detail: string): Outcome => ({ outcome: 'ignored', detail });
const refused = (detail: string): Outcome => ({ outcome: 'refused', detail });

function notConfigured(): never {
  throw new BillingError('not_configured', new BillingNotConfigured().message);
}

function stripe(): Stripe {
  try {
    return getStripe();
  } catch (err) {
    if (err instanceof BillingNotConfigured) notConfigured();
    throw err;
  }
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (v ? (typeof v === 'string' ? v : v.id) : null);
const fromUnix = (s: number | null | undefined): Date | null => (typeof s === 'number' && s > 0 ? new Date(s * 1000) : null);

// ---------------------------------------------------------------------------------------------
// The catalogue as the API and the page show it

export type PlanView = { id: string; price: number; priceId: string | null; monthlyCredits: number; featureKeys: readonly string[] };
export type TopUpView = { id: TopUpId; price: number; priceId: string | null; credits: number };

/** Plans and packs with their Stripe price ids (null when the STRIPE_PRICE_* is unset) and USD prices. */
export function catalogueWithPrices(): { plans: PlanView[]; topUpPlans: TopUpView[] } {
  return {
    plans: Object.values(plans).map((p) => ({
      id: p.id,
      price: p.priceCents / 100,
      priceId: priceIdOf(p.priceEnv),
      monthlyCredits: p.monthlyCredits,
      featureKeys: p.featureKeys,
    })),
    topUpPlans: topUpPacks.map((p) => ({ id: p.id, price: p.priceCents / 100, priceId: priceIdOf(p.priceEnv), credits: p.credits })),
  };
}

// ---------------------------------------------------------------------------------------------
// Reads

export type SubscriptionInfo = {
  subscriptionStatus: SubscriptionStatus;
  creditsRemaining: number;
  topUpCreditsRemaining: number;
  totalCreditsRemaining: number;
  textCreditsRemaining: number;
  imageCreditsRemaining: number;
  nextBillingDate: string | null;
  cancelAtPeriodEnd: boolean;
  hasBillingAccount: boolean;
};

/** SPEC §3 Subscription info: the real status, the balances and the next billing (or reset) date. */
export async function getSubscriptionInfo(userId: string, db: Db = sql): Promise<SubscriptionInfo> {
  const credits = await getCurrentCreditSummary(userId, db);
  const [row] = await db<
    { status: SubscriptionStatus; periodEnd: Date | null; cancelAtPeriodEnd: boolean | null; customer: string | null }[]
  >`
    SELECT u.subscription_status AS status,
      s.current_period_end AS "periodEnd", s.cancel_at_period_end AS "cancelAtPeriodEnd",
      (SELECT stripe_customer_id FROM billing_customers c WHERE c.user_id = u.id) AS customer
    FROM users u
    LEFT JOIN LATERAL (SELECT * FROM billing_subscriptions b WHERE b.user_id = u.id AND b.ended_at IS NULL AND b.duplicate_of IS NULL
      ORDER BY b.created_at DESC LIMIT 1) s ON true
    WHERE u.id = ${userId}`;
  const status = row?.status ?? 'free';
  const pro = status === 'pro' || status === 'canceled';
  const next = pro && row?.periodEnd ? row.periodEnd : credits.nextResetAt;
  return {
    subscriptionStatus: status,
    creditsRemaining: credits.creditsRemaining,
    topUpCreditsRemaining: credits.topUpCreditsRemaining,
    totalCreditsRemaining: credits.totalCreditsRemaining,
    textCreditsRemaining: credits.totalCreditsRemaining,
    imageCreditsRemaining: credits.totalCreditsRemaining,
    nextBillingDate: next ? next.toISOString() : null,
    cancelAtPeriodEnd: Boolean(pro && row?.cancelAtPeriodEnd),
    hasBillingAccount: Boolean(row?.customer),
  };
}

async function currentStatus(userId: string, db: Db): Promise<SubscriptionStatus> {
  const [row] = await db<{ status: SubscriptionStatus }[]>`SELECT subscription_status AS status FROM users WHERE id = ${userId}`;
  if (!row) throw new BillingError('not_found', 'Unknown user');
  return row.status;
}

// ---------------------------------------------------------------------------------------------
// Customer and Checkout

/**
 * The user's Stripe customer, created once. The row is claimed first; Stripe's idempotency key
 * names the user, so two clicks racing get the same customer, and the first id written stays.
 */
export async function ensureCustomer(user: BillingUser, db: Db = sql): Promise<string> {
  await db`INSERT INTO billing_customers (user_id) VALUES (${user.id}) ON CONFLICT (user_id) DO NOTHING`;
  const [row] = await db<{ id: string | null }[]>`SELECT stripe_customer_id AS id FROM billing_customers WHERE user_id = ${user.id}`;
  if (row?.id) return row.id;
  const customer = await stripe().customers.create(
    { email: user.email, name: user.name, metadata: { userId: user.id } },
    { idempotencyKey: `postforge-customer-${user.id}` },
  );
  const [saved] = await db<{ id: string }[]>`
    UPDATE billing_customers SET stripe_customer_id = coalesce(stripe_customer_id, ${customer.id})
    WHERE user_id = ${user.id} RETURNING stripe_customer_id AS id`;
  return saved!.id;
}

export type CheckoutResult = { url: string; sessionId: string | null };

function returnUrls(kind: 'subscription' | 'topup', credits?: number) {
  const base = `${loadEnv().APP_URL}/subscription`;
  const topUp = kind === 'topup' ? `&isTopUp=true&creditAmount=${credits}` : '';
  return {
    success_url: `${base}?success=true${topUp}&session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${base}?canceled=true${topUp}`,
  };
}

/**
 * A Checkout Session for a price of the catalogue: subscription mode for Pro, payment mode for a
 * top-up (Pro only). A canceled Pro resubscribing resumes its subscription instead of paying twice.
 */
export async function createCheckout(user: BillingUser, priceId: string, language: string | null, db: Db = sql): Promise<CheckoutResult> {
  const client = stripe();
  const target = findPrice(priceId);
  if (!target) throw new BillingError('unknown_price', 'Unknown price');
  const status = await currentStatus(user.id, db);
  if (target.kind === 'topup' && status !== 'pro') throw new BillingError('requires_pro', 'Top-up purchase requires Pro subscription');
  if (target.kind === 'plan') {
    if (target.id !== 'pro') throw new BillingError('unknown_price', 'Unknown price');
    if (status === 'pro') throw new BillingError('already_subscribed', 'Already subscribed');
    if (status === 'canceled') {
      await resumeSubscription(user, db);
      // No payment was made: the page is told the plan resumed, not that a payment succeeded.
      return { url: `${loadEnv().APP_URL}/subscription?resumed=true`, sessionId: null };
    }
  }
  const customer = await ensureCustomer(user, db);
  if (target.kind === 'plan') return openProCheckout(user, customer, target.priceId, stripeLocale(language), db);
  const metadata = { userId: user.id, kind: 'topup', packId: target.id };
  const session = await client.checkout.sessions.create({
    mode: 'payment',
    customer,
    client_reference_id: user.id,
    line_items: [{ price: target.priceId, quantity: 1 }],
    locale: stripeLocale(language),
    metadata,
    payment_intent_data: { metadata },
    ...returnUrls('topup', target.credits),
  });
  await db`INSERT INTO billing_checkouts (session_id, user_id, kind, pack_id, credits)
    VALUES (${session.id}, ${user.id}, 'topup', ${target.id}, ${target.credits})
    ON CONFLICT (session_id) DO NOTHING`;
  if (!session.url) throw new BillingError('not_found', 'Checkout has no page');
  return { url: session.url, sessionId: session.id };
}

/**
 * One open Pro Checkout per user (issue 24): a second request (another tab, a double click racing
 * the first) gets the open session back. The claim row is taken first and Stripe's idempotency key
 * names it, so racing requests create one session, and no lock is held across the call. A claimed
 * session that was paid meanwhile is fulfilled (its webhook may be late); one that expired gives
 * its claim up and the next try opens a new one.
 */
async function openProCheckout(user: BillingUser, customer: string, priceId: string, locale: string, db: Db): Promise<CheckoutResult> {
  const client = stripe();
  for (let attempt = 0; attempt < 3; attempt++) {
    await db`INSERT INTO billing_pro_checkout_claims (user_id, locale) VALUES (${user.id}, ${locale}) ON CONFLICT (user_id) DO NOTHING`;
    const [claim] = await db<{ claimId: string; locale: Stripe.Checkout.SessionCreateParams.Locale; sessionId: string | null }[]>`
      SELECT claim_id AS "claimId", locale, session_id AS "sessionId" FROM billing_pro_checkout_claims WHERE user_id = ${user.id}`;
    if (!claim) continue; // given up between the two statements: claim again
    let session: Stripe.Checkout.Session;
    if (claim.sessionId) {
      session = await client.checkout.sessions.retrieve(claim.sessionId);
    } else {
      try {
        // Every parameter comes from the claim or the user, so racing requests send the same ones.
        session = await client.checkout.sessions.create(
          {
            mode: 'subscription',
            customer,
            client_reference_id: user.id,
            line_items: [{ price: priceId, quantity: 1 }],
            locale: claim.locale,
            metadata: { userId: user.id, kind: 'subscription', packId: '' },
            subscription_data: { metadata: { userId: user.id } },
            ...returnUrls('subscription'),
          },
          { idempotencyKey: `postforge-pro-checkout-${claim.claimId}` },
        );
      } catch (err) {
        await releaseProClaim(user.id, claim.claimId, db);
        throw err;
      }
      await db`INSERT INTO billing_checkouts (session_id, user_id, kind) VALUES (${session.id}, ${user.id}, 'subscription')
        ON CONFLICT (session_id) DO NOTHING`;
      await db`UPDATE billing_pro_checkout_claims SET session_id = ${session.id}
        WHERE user_id = ${user.id} AND claim_id = ${claim.claimId} AND session_id IS NULL`;
    }
    if (session.status === 'open' && session.url) return { url: session.url, sessionId: session.id };
    if (session.status === 'complete') {
      await fulfilCheckout(session, null, db);
      if ((await currentStatus(user.id, db)) !== 'free') throw new BillingError('already_subscribed', 'Already subscribed');
    }
    await releaseProClaim(user.id, claim.claimId, db);
  }
  throw new BillingError('not_found', 'Checkout has no page');
}

async function releaseProClaim(userId: string, claimId: string, db: Db): Promise<void> {
  await db`DELETE FROM billing_pro_checkout_claims WHERE user_id = ${userId} AND claim_id = ${claimId}`;
}

/** The Stripe customer portal (cards, invoices, receipts) for the user. */
export async function createPortalSession(user: BillingUser, language: string | null, db: Db = sql): Promise<string> {
  const client = stripe();
  const [row] = await db<{ id: string | null }[]>`SELECT stripe_customer_id AS id FROM billing_customers WHERE user_id = ${user.id}`;
  if (!row?.id) throw new BillingError('no_customer', 'No billing account yet');
  const portal = await client.billingPortal.sessions.create({
    customer: row.id,
    return_url: `${loadEnv().APP_URL}/subscription`,
    locale: stripeLocale(language),
  });
  return portal.url;
}

async function liveSubscription(userId: string, db: Db): Promise<string | null> {
  const [row] = await db<{ id: string }[]>`
    SELECT subscription_id AS id FROM billing_subscriptions WHERE user_id = ${userId} AND ended_at IS NULL AND duplicate_of IS NULL
    ORDER BY created_at DESC LIMIT 1`;
  return row?.id ?? null;
}

/** Cancels at the period end (SPEC §4 first reading: benefits kept until then). */
export async function cancelSubscription(user: BillingUser, db: Db = sql): Promise<SubscriptionInfo> {
  const client = stripe();
  const status = await currentStatus(user.id, db);
  const subscriptionId = status === 'pro' ? await liveSubscription(user.id, db) : null;
  if (!subscriptionId) throw new BillingError('no_active_subscription', 'No active subscription');
  const sub = await client.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
  await applySubscriptionState(sub, new Date(), null, db);
  return getSubscriptionInfo(user.id, db);
}

async function resumeSubscription(user: BillingUser, db: Db): Promise<void> {
  const subscriptionId = await liveSubscription(user.id, db);
  if (!subscriptionId) throw new BillingError('no_active_subscription', 'No active subscription');
  const sub = await stripe().subscriptions.update(subscriptionId, { cancel_at_period_end: false });
  await applySubscriptionState(sub, new Date(), null, db);
}

// ---------------------------------------------------------------------------------------------
// The return page (manual-upgrade / activate): never trust the browser, ask Stripe

export type SyncResult = { kind: 'subscription' | 'topup'; subscriptionStatus: SubscriptionStatus; credits?: number };

/**
 * Reads the Checkout Session from Stripe, checks it is paid and the user's own (else not_found:
 * another user's session answers like an unknown one), and runs the webhook's fulfilment.
 */
export async function syncCheckoutSession(userId: string, sessionId: string, db: Db = sql): Promise<SyncResult> {
  const client = stripe();
  const [row] = await db<{ userId: string; kind: 'subscription' | 'topup' }[]>`
    SELECT user_id AS "userId", kind FROM billing_checkouts WHERE session_id = ${sessionId}`;
  if (!row || row.userId !== userId) throw new BillingError('not_found', 'Checkout session not found');
  let session: Stripe.Checkout.Session;
  try {
    session = await client.checkout.sessions.retrieve(sessionId, { expand: ['invoice', 'subscription'] });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw new BillingError('not_found', 'Checkout session not found');
    throw err;
  }
  if (session.client_reference_id !== userId) throw new BillingError('not_found', 'Checkout session not found');
  if (session.status !== 'complete' || (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required')) {
    throw new BillingError('not_paid', 'Payment not completed');
  }
  const outcome = await fulfilCheckout(session, null, db);
  if (outcome.outcome === 'refused') throw new BillingError('not_found', 'Checkout session not found');
  const invoice = session.invoice && typeof session.invoice === 'object' ? session.invoice : null;
  if (invoice && invoice.status === 'paid') await applyPaidInvoice(invoice, null, db);
  const [credits] = await db<{ credits: number | null }[]>`SELECT credits FROM billing_checkouts WHERE session_id = ${sessionId}`;
  return { kind: row.kind, subscriptionStatus: await currentStatus(userId, db), credits: credits?.credits ?? undefined };
}

/**
 * Marks a paid checkout's return as shown, once: null the first time (the page may announce the
 * payment), else when it was first shown (the page must not announce it as new again).
 */
export async function claimReturnShown(userId: string, sessionId: string, db: Db = sql): Promise<Date | null> {
  const [first] = await db`UPDATE billing_checkouts SET return_shown_at = now()
    WHERE session_id = ${sessionId} AND user_id = ${userId} AND return_shown_at IS NULL RETURNING session_id`;
  if (first) return null;
  const [row] = await db<{ at: Date | null }[]>`
    SELECT return_shown_at AS at FROM billing_checkouts WHERE session_id = ${sessionId} AND user_id = ${userId}`;
  return row?.at ?? new Date();
}

// ---------------------------------------------------------------------------------------------
// Fulfilment (shared by the webhook job and the return page)

async function lockUser(userId: string, tx: TransactionSql): Promise<SubscriptionStatus | null> {
  const [row] = await tx<{ status: SubscriptionStatus }[]>`SELECT subscription_status AS status FROM users WHERE id = ${userId} FOR UPDATE`;
  return row?.status ?? null;
}

async function setStatus(userId: string, status: SubscriptionStatus, tx: TransactionSql): Promise<void> {
  await tx`UPDATE users SET subscription_status = ${status}, updated_at = now() WHERE id = ${userId} AND subscription_status <> ${status}`;
}

async function userOfCustomer(customerId: string | null, db: Db): Promise<string | null> {
  if (!customerId) return null;
  const [row] = await db<{ userId: string }[]>`SELECT user_id AS "userId" FROM billing_customers WHERE stripe_customer_id = ${customerId}`;
  return row?.userId ?? null;
}

async function existingUser(id: string | null | undefined, db: Db): Promise<string | null> {
  if (!id || !/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await db<{ id: string }[]>`SELECT id FROM users WHERE id = ${id}`;
  return row?.id ?? null;
}

type SubscriptionRow = {
  userId: string;
  endedAt: Date | null;
  cancel: boolean;
  granted: Date | null;
  periodEnd: Date | null;
  stateAt: Date | null;
  duplicateOf: string | null;
};

/**
 * The subscription's row, recorded the first time it is seen (the caller holds the user's lock).
 * One Pro subscription per user (issue 24): a live one arriving while another is live is recorded
 * as its duplicate, flagged for finance, and the billing-duplicate job (enqueued in this
 * transaction) cancels it at Stripe and refunds it. One that has already ended is no duplicate.
 */
async function linkSubscription(
  subscriptionId: string,
  userId: string,
  customerId: string | null,
  live: boolean,
  tx: TransactionSql,
): Promise<SubscriptionRow> {
  const select = () => tx<SubscriptionRow[]>`
    SELECT user_id AS "userId", ended_at AS "endedAt", cancel_at_period_end AS cancel, granted_period_start AS granted,
      current_period_end AS "periodEnd", state_at AS "stateAt", duplicate_of AS "duplicateOf"
    FROM billing_subscriptions WHERE subscription_id = ${subscriptionId} FOR UPDATE`;
  const [known] = await select();
  if (known) return known;
  const [keeper] = live
    ? await tx<{ id: string }[]>`
        SELECT subscription_id AS id FROM billing_subscriptions
        WHERE user_id = ${userId} AND ended_at IS NULL AND duplicate_of IS NULL ORDER BY created_at LIMIT 1`
    : [];
  const inserted = await tx`
    INSERT INTO billing_subscriptions (subscription_id, user_id, customer_id, duplicate_of)
    VALUES (${subscriptionId}, ${userId}, ${customerId}, ${keeper?.id ?? null})
    ON CONFLICT (subscription_id) DO NOTHING RETURNING subscription_id`;
  if (keeper && inserted.length > 0) {
    await flag(
      `duplicate_subscription:${subscriptionId}`,
      userId,
      'duplicate_subscription',
      {
        subscription: subscriptionId,
        keptSubscription: keeper.id,
        customer: customerId,
      },
      tx,
    );
    await enqueueMany('billing-duplicate', [{ payload: { subscriptionId } }], tx);
  }
  return (await select())[0]!;
}

type LinkedSubscription = { userId: string; status: SubscriptionStatus; sub: SubscriptionRow };

/**
 * A subscription event's user and row, then `apply` under that user's lock: the user the
 * subscription is recorded for, else its customer's, else the one its metadata names; the
 * subscription is recorded on first sight (linkSubscription). Refused when no user is known or the
 * subscription is another user's.
 */
async function withSubscription(
  ref: { subscriptionId: string; customerId: string | null; metadataUserId?: string | null; live?: boolean },
  apply: (linked: LinkedSubscription, tx: TransactionSql) => Promise<Outcome>,
  db: Db,
): Promise<Outcome> {
  const [known] = await db<{ userId: string }[]>`
    SELECT user_id AS "userId" FROM billing_subscriptions WHERE subscription_id = ${ref.subscriptionId}`;
  const userId = known?.userId ?? (await userOfCustomer(ref.customerId, db)) ?? (await existingUser(ref.metadataUserId, db));
  if (!userId) return refused('unknown customer');
  return transaction(db, async (tx) => {
    const status = await lockUser(userId, tx);
    if (!status) return refused('unknown user');
    const sub = await linkSubscription(ref.subscriptionId, userId, ref.customerId, ref.live ?? true, tx);
    if (sub.userId !== userId) return refused('subscription belongs to another user');
    return apply({ userId, status, sub }, tx);
  });
}

/** checkout.session.completed / async_payment_succeeded: link customer and subscription, book a paid top-up. */
export async function fulfilCheckout(session: Stripe.Checkout.Session, eventId: string | null = null, db: Db = sql): Promise<Outcome> {
  if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') return ignored('not paid yet');
  const [row] = await db<{ userId: string; credits: number | null; packId: string | null }[]>`
    SELECT user_id AS "userId", credits, pack_id AS "packId" FROM billing_checkouts WHERE session_id = ${session.id}`;
  const reference = session.client_reference_id;
  if (row && reference && row.userId !== reference) return refused('session belongs to another user');
  const customerId = idOf(session.customer);
  const customerUser = await userOfCustomer(customerId, db);
  const userId = row?.userId ?? (await existingUser(reference, db));
  if (!userId) return refused('unknown user');
  if (customerUser && customerUser !== userId) return refused('customer belongs to another user');

  return transaction(db, async (tx) => {
    const status = await lockUser(userId, tx);
    if (!status) return refused('unknown user');
    if (customerId) {
      await tx`INSERT INTO billing_customers (user_id, stripe_customer_id) VALUES (${userId}, ${customerId})
        ON CONFLICT (user_id) DO UPDATE SET stripe_customer_id = coalesce(billing_customers.stripe_customer_id, excluded.stripe_customer_id)`;
    }
    if (session.mode === 'subscription') {
      const subscriptionId = idOf(session.subscription);
      if (!subscriptionId) return ignored('no subscription on the session');
      const sub = await linkSubscription(subscriptionId, userId, customerId, true, tx);
      if (sub.userId !== userId) return refused('subscription belongs to another user');
      await tx`UPDATE billing_checkouts SET fulfilled_at = coalesce(fulfilled_at, now()) WHERE session_id = ${session.id}`;
      await tx`DELETE FROM billing_pro_checkout_claims WHERE user_id = ${userId} AND session_id = ${session.id}`;
      if (sub.duplicateOf) return applied('duplicate subscription: canceled and refunded');
      if (sub.endedAt) return ignored('subscription already ended');
      if (status === 'free') await setStatus(userId, sub.cancel ? 'canceled' : 'pro', tx);
      return applied('subscription linked');
    }
    const packId = (row?.packId ?? session.metadata?.packId ?? '') as string;
    const credits = row?.credits ?? topUpPacks.find((p) => p.id === packId)?.credits;
    if (!credits) return refused('unknown top-up pack');
    const paymentIntent = idOf(session.payment_intent);
    const purchase = await purchaseTopUp(
      userId,
      session.id,
      credits,
      {
        event: eventId,
        checkoutSession: session.id,
        paymentIntent,
        currency: session.currency ?? null,
        amountMinor: session.amount_total ?? null,
      },
      tx,
    );
    await tx`INSERT INTO billing_checkouts (session_id, user_id, kind, pack_id, credits, payment_intent, fulfilled_at)
      VALUES (${session.id}, ${userId}, 'topup', ${packId || null}, ${credits}, ${paymentIntent}, now())
      ON CONFLICT (session_id) DO UPDATE SET payment_intent = coalesce(billing_checkouts.payment_intent, excluded.payment_intent),
        fulfilled_at = coalesce(billing_checkouts.fulfilled_at, now())`;
    // A refund that arrived first waits in the inbox: applied now, in the booking's transaction.
    const reversed = await settleRefunds(purchase, undefined, tx);
    return applied(`top-up ${credits}${reversed ? `; refund reversed ${reversed}` : ''}`);
  });
}

function subscriptionOfInvoice(invoice: Stripe.Invoice): string | null {
  const details = invoice.parent?.subscription_details;
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  return idOf(details?.subscription ?? legacy ?? null);
}

function invoicePeriod(invoice: Stripe.Invoice): { start: Date; end: Date } | null {
  const line = invoice.lines?.data?.find((l) => l.period?.start && l.period?.end);
  const start = fromUnix(line?.period.start ?? invoice.period_start);
  const end = fromUnix(line?.period.end ?? invoice.period_end);
  return start && end ? { start, end } : null;
}

/**
 * invoice.paid for a subscription: the Pro period. Expires what is left of the monthly bucket and
 * grants the Pro amount, keyed by subscription and period start; an older period arriving after a
 * newer one, or any period of an ended subscription, books nothing.
 */
function invoicePayment(invoice: Stripe.Invoice): { paymentIntent: string | null; charge: string | null } {
  // Older API versions name them on the invoice; newer ones list the invoice's payments.
  const legacy = invoice as unknown as { charge?: string | { id: string } | null; payment_intent?: string | { id: string } | null };
  const payment = (
    invoice as unknown as {
      payments?: { data?: { payment?: { payment_intent?: string | { id: string } | null; charge?: string | { id: string } | null } }[] };
    }
  ).payments?.data?.[0]?.payment;
  return {
    paymentIntent: idOf(legacy.payment_intent ?? payment?.payment_intent ?? null),
    charge: idOf(legacy.charge ?? payment?.charge ?? null),
  };
}

export async function applyPaidInvoice(invoice: Stripe.Invoice, eventId: string | null = null, db: Db = sql): Promise<Outcome> {
  if (invoice.status && invoice.status !== 'paid') return ignored(`invoice ${invoice.status}`);
  const subscriptionId = subscriptionOfInvoice(invoice);
  if (!subscriptionId) return ignored('not a subscription invoice');
  const period = invoicePeriod(invoice);
  if (!period) return ignored('invoice without a period');
  const ref = {
    subscriptionId,
    customerId: idOf(invoice.customer),
    metadataUserId: invoice.parent?.subscription_details?.metadata?.userId,
  };
  return withSubscription(
    ref,
    async ({ userId, status, sub }, tx) => {
      if (sub.duplicateOf) return ignored('duplicate subscription: refunded, grants nothing');
      const label = `${subscriptionId}:${period.start.toISOString()}`;
      const payment = invoicePayment(invoice);
      const notGranted = async (why: string) => {
        // Paid but no credits for it (Stripe's order, or a period already over): finance decides, once.
        if ((invoice.amount_paid ?? 0) > 0) {
          await flag(
            `invoice:${invoice.id}`,
            userId,
            'invoice_not_granted',
            {
              invoice: invoice.id,
              subscription: subscriptionId,
              periodStart: period.start.toISOString(),
              amountPaid: invoice.amount_paid,
              currency: invoice.currency,
              // A refund of it later has nothing to reverse: reconcile finds this flag by its charge.
              charge: payment.charge,
              reason: why,
            },
            tx,
          );
        }
        return ignored(why);
      };
      // A repeat of an invoice already granted (delivered again after a later one, or after the end) is no news.
      if (await isPeriodGranted(userId, label, tx)) return ignored('period already granted');
      if (sub.endedAt) return notGranted('subscription already ended');
      if (sub.granted && sub.granted.getTime() > period.start.getTime()) return notGranted('a later period is granted');
      if (sub.granted && sub.granted.getTime() === period.start.getTime()) return ignored('period already granted');
      await expireMonthly(userId, label, { event: eventId, invoice: invoice.id }, tx);
      const grant = await grantMonthly(
        userId,
        label,
        plans.pro.monthlyCredits,
        {
          event: eventId,
          invoice: invoice.id,
          paymentIntent: payment.paymentIntent,
          charge: payment.charge,
          currency: invoice.currency ?? null,
          amountMinor: invoice.amount_paid ?? null,
        },
        tx,
      );
      const end = sub.periodEnd && sub.periodEnd > period.end ? sub.periodEnd : period.end;
      await tx`UPDATE billing_subscriptions SET granted_period_start = ${period.start}, current_period_end = ${end}, updated_at = now()
      WHERE subscription_id = ${subscriptionId}`;
      if (status === 'free') await setStatus(userId, sub.cancel ? 'canceled' : 'pro', tx);
      const reversed = await settleRefunds(grant, undefined, tx);
      return applied(`granted ${label}${reversed ? `; refund reversed ${reversed}` : ''}`);
    },
    db,
  );
}

function periodEndOf(sub: Stripe.Subscription): Date | null {
  const item = sub.items?.data?.[0] as { current_period_end?: number } | undefined;
  const legacy = (sub as unknown as { current_period_end?: number }).current_period_end;
  return fromUnix(item?.current_period_end ?? legacy);
}

/**
 * customer.subscription.updated (and our own cancel/resume): cancel at period end → canceled with
 * the benefits kept; resumed → pro. A state older than the one applied is skipped.
 */
export async function applySubscriptionState(
  sub: Stripe.Subscription,
  at: Date,
  eventId: string | null = null,
  db: Db = sql,
): Promise<Outcome> {
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') return endSubscription(sub, eventId, db);
  const ref = { subscriptionId: sub.id, customerId: idOf(sub.customer), metadataUserId: sub.metadata?.userId };
  return withSubscription(
    ref,
    async ({ userId, status, sub: row }, tx) => {
      if (row.duplicateOf) return ignored('duplicate subscription');
      if (row.endedAt) return ignored('subscription already ended');
      if (row.stateAt && row.stateAt.getTime() > at.getTime()) return ignored('older state');
      const cancel = Boolean(sub.cancel_at_period_end || sub.cancel_at);
      await tx`UPDATE billing_subscriptions SET cancel_at_period_end = ${cancel},
        current_period_end = coalesce(${periodEndOf(sub)}, current_period_end), state_at = ${at}, updated_at = now()
      WHERE subscription_id = ${sub.id}`;
      // Only a subscription that made the user Pro moves the badge (activation is the paid checkout or invoice).
      if (status === 'pro' || status === 'canceled') await setStatus(userId, cancel ? 'canceled' : 'pro', tx);
      return applied(cancel ? 'cancel at period end' : 'active');
    },
    db,
  );
}

/** customer.subscription.deleted: back to Free; top-ups forfeited, monthly expired, the Free grant. */
export async function endSubscription(sub: Stripe.Subscription, eventId: string | null = null, db: Db = sql): Promise<Outcome> {
  const ref = { subscriptionId: sub.id, customerId: idOf(sub.customer), metadataUserId: sub.metadata?.userId, live: false };
  return withSubscription(
    ref,
    async ({ userId, sub: row }, tx) => {
      const endedAt = fromUnix(sub.ended_at) ?? new Date();
      await tx`UPDATE billing_subscriptions SET ended_at = coalesce(ended_at, ${endedAt}), updated_at = now() WHERE subscription_id = ${sub.id}`;
      // A duplicate never gave anything: its end takes nothing from the user either.
      if (row.duplicateOf) return applied('duplicate subscription ended');
      const [other] = await tx<{ id: string }[]>`
      SELECT subscription_id AS id FROM billing_subscriptions WHERE user_id = ${userId} AND ended_at IS NULL AND granted_period_start IS NOT NULL`;
      if (other) return applied('ended; another subscription is live');
      const label = `${sub.id}:ended`;
      const origin: StripeOrigin = { event: eventId };
      await forfeitTopUp(userId, label, origin, tx);
      await expireMonthly(userId, label, origin, tx);
      await grantMonthly(userId, label, plans.free.monthlyCredits, origin, tx);
      await setStatus(userId, 'free', tx);
      return applied(row.endedAt ? 'already ended' : 'ended');
    },
    db,
  );
}

/**
 * charge.refunded, for a top-up or a Pro invoice, whichever arrives first. Under the user's lock
 * (the one the booking takes): a payment already booked is settled now; one not booked yet is
 * settled by its booking, which reads the refunds waiting in the inbox. Status stays as Stripe's
 * subscription events set it (a refund alone does not end a subscription).
 */
export async function refundCharge(charge: Stripe.Charge, db: Db = sql): Promise<Outcome> {
  const paymentIntent = idOf(charge.payment_intent);
  const [duplicate] = await db<{ id: string }[]>`
    SELECT subscription_id AS id FROM billing_subscriptions
    WHERE refunding_payments && ${[charge.id, ...(paymentIntent ? [paymentIntent] : [])]}::text[]`;
  if (duplicate) return ignored(`our refund of duplicate subscription ${duplicate.id} (flagged)`);
  const userId =
    (await userOfCustomer(idOf(charge.customer), db)) ?? (await existingUser((charge.metadata as { userId?: string } | null)?.userId, db));
  if (!userId) return ignored('refund of an unknown customer');
  return transaction(db, async (tx) => {
    if (!(await lockUser(userId, tx))) return refused('unknown user');
    const [legacy] = paymentIntent
      ? await tx<{ sessionId: string }[]>`
          SELECT session_id AS "sessionId" FROM billing_checkouts WHERE payment_intent = ${paymentIntent} AND kind = 'topup' AND user_id = ${userId}`
      : [];
    const payment = await findPaymentEntry(userId, { paymentIntent, charge: charge.id, checkoutSession: legacy?.sessionId }, tx);
    if (!payment) return ignored('payment not booked yet: its booking applies the refund');
    const reversed = await settleRefunds(payment, charge, tx);
    return applied(`reversed ${reversed}`);
  });
}

type StoredRefund = {
  eventId: string | null;
  charge: string;
  paymentIntent: string | null;
  amount: number;
  /** Stripe's running total (`amount_refunded`), the highest reported. */
  refunded: number;
  currency: string | null;
  /** Every step known, in the order Stripe made them. */
  steps: RefundStep[];
};

/** The refunds Stripe reported for a payment, per charge, from the inbox and the event at hand. */
async function refundsOf(
  paymentIntent: string | null,
  charge: string | null,
  current: Stripe.Charge | undefined,
  tx: TransactionSql,
): Promise<StoredRefund[]> {
  const list = await tx<{ eventId: string; charge: Stripe.Charge }[]>`
    SELECT id AS "eventId", payload -> 'data' -> 'object' AS charge FROM billing_events
    WHERE type = 'charge.refunded' AND ((payload -> 'data' -> 'object' ->> 'payment_intent') = ${paymentIntent}
      OR (payload -> 'data' -> 'object' ->> 'id') = ${charge})
    ORDER BY received_at, id`;
  const seen = [
    ...list.map((r) => ({ eventId: r.eventId as string | null, charge: r.charge })),
    ...(current ? [{ eventId: null, charge: current }] : []),
  ];
  const byCharge = new Map<string, { latest: { eventId: string | null; charge: Stripe.Charge }; all: Stripe.Charge[] }>();
  for (const s of seen) {
    const prior = byCharge.get(s.charge.id);
    if (!prior) {
      byCharge.set(s.charge.id, { latest: s, all: [s.charge] });
      continue;
    }
    prior.all.push(s.charge);
    const refunded = (c: Stripe.Charge) => Number(c.amount_refunded) || 0;
    // The event that reported the most names the booking; among equals the stored one (it has an id).
    if (
      refunded(s.charge) > refunded(prior.latest.charge) ||
      (refunded(s.charge) === refunded(prior.latest.charge) && !prior.latest.eventId)
    ) {
      prior.latest = s;
    }
  }
  return [...byCharge.values()]
    .map(({ latest, all }) => {
      const c = latest.charge;
      const steps = refundStepsOf(all as never);
      return {
        eventId: latest.eventId,
        charge: c.id,
        paymentIntent: idOf(c.payment_intent),
        amount: Number(c.amount) || 0,
        refunded: steps.at(-1)?.level ?? 0,
        currency: c.currency ?? null,
        steps,
      };
    })
    .filter((r) => r.refunded > 0 && r.amount > 0);
}

/**
 * Settles a booked payment's refunds (caller holds the user's lock): for each refund step not yet
 * booked, in order, takes back the credits the refunded money bought by the catalogue (the
 * customer keeps what the money kept pays for, rounded down), capped at the unspent part, and flags
 * it for finance once with what was taken back and the shortfall. One row and one flag per step,
 * so each row's money is that step's, as Stripe's refund object says. Returns the credits taken back now.
 */
async function settleRefunds(payment: LedgerEntry, current: Stripe.Charge | undefined, tx: TransactionSql): Promise<number> {
  const kind = payment.kind === 'topup_purchase' ? 'topup' : 'grant';
  const refunds = await refundsOf(payment.stripe?.paymentIntent ?? null, payment.stripe?.charge ?? null, current, tx);
  let total = 0;
  for (const refund of refunds) {
    // A refund naming no currency is in the payment's.
    const currency = refund.currency ?? payment.stripe?.currency ?? null;
    for (const step of refund.steps) {
      const done = await refundReversalsOf(kind, payment.userId, payment.externalRef!, tx);
      const before = Math.min(refund.amount, Math.max(0, ...done.map((d) => d.level)));
      if (before >= step.level) continue;
      const credits = payment.amount;
      const kept = (minor: number) => Math.floor((credits * (refund.amount - minor)) / refund.amount);
      const intended = kept(before) - kept(step.level);
      // A Pro period that is over (a later invoice or the subscription's end expired it) has nothing unspent left.
      const takeNothing = kind === 'grant' && !(await isCurrentGrant(payment, tx));
      const entry = await reverseRefund(
        {
          kind,
          userId: payment.userId,
          ref: payment.externalRef!,
          refundedMinor: step.level,
          credits: intended,
          takeNothing,
          origin: {
            event: refund.eventId,
            checkoutSession: payment.stripe?.checkoutSession ?? (kind === 'topup' ? payment.externalRef : null),
            invoice: payment.stripe?.invoice ?? null,
            paymentIntent: refund.paymentIntent,
            charge: refund.charge,
            currency,
            amountMinor: step.level - before,
          },
        },
        tx,
      );
      await flag(
        `refund:${refund.charge}@${step.level}`,
        payment.userId,
        kind === 'topup' ? 'topup_refund' : 'invoice_refund',
        {
          charge: refund.charge,
          refund: step.refundId,
          ...(kind === 'topup' ? { session: payment.externalRef } : { invoice: payment.stripe?.invoice, period: payment.externalRef }),
          amount: refund.amount,
          // This step's money; Stripe's running total after it is named as such (and kept under Stripe's name).
          refundedMinor: step.level - before,
          refundedTotalMinor: step.level,
          amountRefunded: step.level,
          currency,
          purchased: credits,
          intended,
          reversed: entry.amount,
          shortfall: intended - entry.amount,
        },
        tx,
      );
      total += entry.amount;
    }
  }
  return total;
}

async function isCurrentGrant(grant: LedgerEntry, tx: TransactionSql): Promise<boolean> {
  const ref = grant.externalRef ?? '';
  const at = ref.indexOf(':');
  if (at < 0) return false;
  const [row] = await tx<{ current: boolean }[]>`
    SELECT ended_at IS NULL AND granted_period_start = ${ref.slice(at + 1)}::timestamptz AS current
    FROM billing_subscriptions WHERE subscription_id = ${ref.slice(0, at)}`;
  return Boolean(row?.current);
}

async function flag(ref: string, userId: string | null, kind: string, detail: Record<string, unknown>, tx: TransactionSql) {
  await tx`INSERT INTO billing_finance_flags (ref, user_id, kind, detail) VALUES (${ref}, ${userId}, ${kind}, ${tx.json(detail as never)})
    ON CONFLICT (ref) DO NOTHING`;
}

// ---------------------------------------------------------------------------------------------
// A second Pro subscription (issue 24): canceled and refunded at Stripe, shown to the user

/** How many times the billing-duplicate job tries a refund before it gives up and leaves it to a person (pg-boss's retries + 1). */
export const DUPLICATE_REFUND_MAX_ATTEMPTS = (queues['billing-duplicate'].options.retryLimit ?? 0) + 1;

/**
 * One attempt of the billing-duplicate job, counted: a failure is kept (attempts, last error) on the
 * subscription and its flag, and thrown for the queue to retry, until the attempts are spent; then
 * the refund is marked failed, its flag is opened again, and the job ends without throwing, so it
 * never loops. Attempts are counted here, not by the queue, so the bound holds however it is run.
 */
export async function attemptDuplicateRefund(
  subscriptionId: string,
  maxAttempts = DUPLICATE_REFUND_MAX_ATTEMPTS,
  db: Db = sql,
): Promise<Outcome> {
  const [claim] = await db<{ attempts: number }[]>`
    UPDATE billing_subscriptions
    SET duplicate_refund_attempts = duplicate_refund_attempts + 1, duplicate_refund_last_attempt_at = now(), updated_at = now()
    WHERE subscription_id = ${subscriptionId} AND duplicate_of IS NOT NULL
      AND duplicate_resolved_at IS NULL AND duplicate_refund_failed_at IS NULL
    RETURNING duplicate_refund_attempts AS attempts`;
  if (!claim) return ignored('not an outstanding duplicate refund');
  try {
    return await resolveDuplicateSubscription(subscriptionId, db);
  } catch (err) {
    const message = String((err as Error).message ?? err).slice(0, 500);
    const failed = claim.attempts >= maxAttempts;
    await transaction(db, async (tx) => {
      await tx`UPDATE billing_subscriptions
        SET duplicate_refund_last_error = ${message}, duplicate_refund_failed_at = ${failed ? new Date() : null}, updated_at = now()
        WHERE subscription_id = ${subscriptionId}`;
      // A refund that will not happen by itself goes back to the open flags, whoever looked before.
      await tx`UPDATE billing_finance_flags
        SET detail = detail || ${tx.json({ refundState: failed ? 'failed' : 'retrying', attempts: claim.attempts, lastError: message } as never)},
          acknowledged_at = CASE WHEN ${failed} THEN NULL ELSE acknowledged_at END,
          acknowledged_by = CASE WHEN ${failed} THEN NULL ELSE acknowledged_by END
        WHERE ref = ${`duplicate_subscription:${subscriptionId}`}`;
    });
    if (failed) return refused(`refund failed after ${claim.attempts} attempts: ${message}`);
    throw err;
  }
}

/**
 * Cancels a duplicate subscription now and refunds every payment of its paid invoices. Safe to run
 * again: the cancel is skipped once Stripe says canceled, each refund has an idempotency key naming
 * its payment, a payment already refunded in full (by hand at Stripe) is not asked again, and the
 * payments are recorded before any refund is asked for (so refundCharge knows their
 * charge.refunded events for ours).
 */
export async function resolveDuplicateSubscription(subscriptionId: string, db: Db = sql): Promise<Outcome> {
  const [row] = await db<{ userId: string; duplicateOf: string | null; resolvedAt: Date | null }[]>`
    SELECT user_id AS "userId", duplicate_of AS "duplicateOf", duplicate_resolved_at AS "resolvedAt"
    FROM billing_subscriptions WHERE subscription_id = ${subscriptionId}`;
  if (!row?.duplicateOf) return ignored('not a duplicate subscription');
  if (row.resolvedAt) return ignored('already canceled and refunded');
  const client = stripe();
  const sub = await client.subscriptions.retrieve(subscriptionId);
  if (sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
    await client.subscriptions.cancel(subscriptionId, {}, { idempotencyKey: `postforge-duplicate-cancel-${subscriptionId}` });
  }
  const payments: { invoice: string | null; paymentIntent: string | null; charge: string | null }[] = [];
  for await (const invoice of client.invoices.list({
    subscription: subscriptionId,
    status: 'paid',
    limit: 100,
    expand: ['data.payments'],
  })) {
    const listed = (invoice.payments?.data ?? []).filter((p) => p.status === 'paid');
    if (listed.length > 0) {
      for (const p of listed) {
        payments.push({ invoice: invoice.id ?? null, paymentIntent: idOf(p.payment.payment_intent), charge: idOf(p.payment.charge) });
      }
    } else {
      // Older API versions name the payment on the invoice itself.
      const legacy = invoice as unknown as { charge?: string | { id: string } | null; payment_intent?: string | { id: string } | null };
      if ((invoice.amount_paid ?? 0) > 0 && (legacy.charge || legacy.payment_intent)) {
        payments.push({ invoice: invoice.id ?? null, paymentIntent: idOf(legacy.payment_intent), charge: idOf(legacy.charge) });
      }
    }
  }
  const ids = payments.map((p) => p.paymentIntent ?? p.charge).filter((id): id is string => Boolean(id));
  await db`UPDATE billing_subscriptions SET refunding_payments = ${ids}::text[], updated_at = now() WHERE subscription_id = ${subscriptionId}`;
  let refundedCents = 0;
  const refunds: string[] = [];
  for (const p of payments) {
    const target = p.paymentIntent ? { payment_intent: p.paymentIntent } : p.charge ? { charge: p.charge } : null;
    if (!target) continue;
    try {
      const refund = await client.refunds.create(
        { ...target, reason: 'duplicate', metadata: { userId: row.userId, subscription: subscriptionId, invoice: p.invoice ?? '' } },
        { idempotencyKey: `postforge-duplicate-refund-${p.paymentIntent ?? p.charge}` },
      );
      refundedCents += refund.amount;
      refunds.push(refund.id);
    } catch (err) {
      // Already refunded in full (someone did it at Stripe): nothing left to ask; anything else is retried.
      if ((err as { code?: string }).code !== 'charge_already_refunded') throw err;
    }
  }
  await transaction(db, async (tx) => {
    await tx`UPDATE billing_subscriptions SET refunded_cents = ${refundedCents}, duplicate_resolved_at = now(),
        duplicate_refund_last_error = NULL, updated_at = now()
      WHERE subscription_id = ${subscriptionId}`;
    await tx`UPDATE billing_finance_flags
      SET detail = detail || ${tx.json({ canceled: true, refunds, refundedCents, currency: 'usd', refundState: 'done', lastError: null } as never)}
      WHERE ref = ${`duplicate_subscription:${subscriptionId}`}`;
  });
  return applied(`duplicate canceled, ${refundedCents} cents refunded`);
}

export type DuplicateSubscriptionView = {
  startedAt: string;
  refundedCents: number | null;
  resolved: boolean;
  state: DuplicateRefundState;
  attempts: number;
};

/** The user's duplicate subscriptions of the last 60 days, for the subscription page. */
export async function recentDuplicateSubscriptions(userId: string, db: Db = sql): Promise<DuplicateSubscriptionView[]> {
  const rows = await db<
    {
      startedAt: Date;
      refundedCents: number | null;
      resolvedAt: Date | null;
      failedAt: Date | null;
      lastError: string | null;
      attempts: number;
    }[]
  >`
    SELECT created_at AS "startedAt", refunded_cents AS "refundedCents", duplicate_resolved_at AS "resolvedAt",
      duplicate_refund_failed_at AS "failedAt", duplicate_refund_last_error AS "lastError", duplicate_refund_attempts AS attempts
    FROM billing_subscriptions
    WHERE user_id = ${userId} AND duplicate_of IS NOT NULL AND created_at > now() - interval '60 days'
    ORDER BY created_at DESC`;
  return rows.map((r) => ({
    startedAt: r.startedAt.toISOString(),
    refundedCents: r.refundedCents,
    resolved: Boolean(r.resolvedAt),
    state: duplicateRefundState(r),
    attempts: r.attempts,
  }));
}

// ---------------------------------------------------------------------------------------------
// The webhook inbox

/**
 * Stores verified events, each once, with their jobs, in one transaction (the intake groups the
 * events that arrive together). Returns the ids stored now (a repeat is not among them).
 */
export async function storeEvents(events: { id: string; type: string; payload: string }[], db: Db = sql): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  return transaction(db, async (tx) => {
    // The raw JSON text goes to Postgres as is (parsed once there, not re-serialised here).
    const inserted = await tx<{ id: string }[]>`
      INSERT INTO billing_events (id, type, payload)
      SELECT x.id, x.type, x.payload::jsonb
      FROM unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.payload)}::text[]) AS x(id, type, payload)
      ON CONFLICT (id) DO NOTHING RETURNING id`;
    await enqueueMany(
      'stripe-event',
      inserted.map((r) => ({ payload: { eventId: r.id } })),
      tx,
    );
    return new Set(inserted.map((r) => r.id));
  });
}

/** Stores one verified event once, with its job; false for a repeat. */
export async function storeEvent(event: { id: string; type: string }, payload: string, db: Db = sql): Promise<boolean> {
  return (await storeEvents([{ id: event.id, type: event.type, payload }], db)).has(event.id);
}

export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'charge.refunded',
] as const;

/** Applies one stored event (the job). Safe to run twice: every booking is keyed. */
export async function processEvent(eventId: string, db: Db = sql): Promise<Outcome | null> {
  const [row] = await db<{ type: string; payload: Stripe.Event; processedAt: Date | null }[]>`
    SELECT type, payload, processed_at AS "processedAt" FROM billing_events WHERE id = ${eventId}`;
  if (!row) return null;
  if (row.processedAt) return null;
  await db`UPDATE billing_events SET attempts = attempts + 1 WHERE id = ${eventId}`;
  const object = row.payload?.data?.object as { id?: unknown } | undefined;
  const at = fromUnix(row.payload?.created) ?? new Date();
  let result: Outcome;
  try {
    result =
      object && typeof object.id === 'string' ? await applyEvent(row.type, object, at, eventId, db) : ignored('event without an object');
  } catch (err) {
    // Left unprocessed for the job's retry; the reason is kept for whoever looks.
    await db`UPDATE billing_events SET detail = ${String((err as Error).message ?? err).slice(0, 500)} WHERE id = ${eventId}`;
    throw err;
  }
  await db`UPDATE billing_events SET processed_at = now(), outcome = ${result.outcome}, detail = ${result.detail ?? null}
    WHERE id = ${eventId} AND processed_at IS NULL`;
  return result;
}

async function applyEvent(type: string, object: unknown, at: Date, eventId: string, db: Db): Promise<Outcome> {
  let result: Outcome;
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      result = await fulfilCheckout(object as Stripe.Checkout.Session, eventId, db);
      break;
    case 'invoice.paid':
      result = await applyPaidInvoice(object as Stripe.Invoice, eventId, db);
      break;
    case 'customer.subscription.updated':
      result = await applySubscriptionState(object as Stripe.Subscription, at, eventId, db);
      break;
    case 'customer.subscription.deleted':
      result = await endSubscription(object as Stripe.Subscription, eventId, db);
      break;
    case 'charge.refunded':
      result = await refundCharge(object as Stripe.Charge, db);
      break;
    default:
      result = ignored('event type not handled');
  }
  return result;
}
