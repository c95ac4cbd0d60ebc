import type Stripe from 'stripe';
import type { SubscriptionStatus } from '~/catalogue';
import { findPrice, stripeLocale } from '~/services/stripe.server';
import { loadEnv } from '~/runtime/env.server';
import { sql, type Db } from '../../../db/client';
import { BillingError, stripe } from './errors.server';
import { applyPaidInvoice, fulfilCheckout } from './fulfilment.server';
import { resumeSubscription } from './subscriptions.server';
import { currentStatus, type BillingUser } from './users.server';

// Checkout and the customer portal, and the return page that asks Stripe what a session paid.

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
 * One open Pro Checkout per user, so one click pays once: a second request (another tab, a double click racing
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
