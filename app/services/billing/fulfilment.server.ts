import type Stripe from 'stripe';
import { plans, topUpPacks } from '~/catalogue';
import { expireMonthly, grantMonthly, isPeriodGranted, purchaseTopUp } from '~/services/ledger.server';
import { sql, transaction, type Db } from '../../../db/client';
import { applied, fromUnix, idOf, ignored, refused, type Outcome } from './outcome.server';
import { settleRefunds } from './refunds.server';
import { linkSubscription, withSubscription } from './subscriptions.server';
import { existingUser, flag, lockUser, setStatus, userOfCustomer } from './users.server';

// Fulfilment, shared by the webhook job and the return page: a paid checkout (the subscription
// linked, a top-up booked) and a paid Pro invoice (the period granted), each with the refunds that
// arrived before it.

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

/**
 * invoice.paid for a subscription: the Pro period. Expires what is left of the monthly bucket and
 * grants the Pro amount, keyed by subscription and period start; an older period arriving after a
 * newer one, or any period of an ended subscription, books nothing.
 */
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
