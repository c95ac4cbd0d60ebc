import type Stripe from 'stripe';
import { findPaymentEntry, refundReversalsOf, reverseRefund, type LedgerEntry } from '~/services/ledger.server';
import { refundStepsOf, type RefundStep } from '~/services/refund-steps.server';
import { sql, transaction, type Db, type TransactionSql } from '../../../db/client';
import { applied, idOf, ignored, refused, type Outcome } from './outcome.server';
import { isCurrentPeriod, openShortfallRecovery } from './shortfalls.server';
import { existingUser, flag, lockUser, userOfCustomer } from './users.server';

// Refunds Stripe reports (charge.refunded): each refund step of a booked payment takes back the
// credits its money bought, once, and is flagged for finance.

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
export async function settleRefunds(payment: LedgerEntry, current: Stripe.Charge | undefined, tx: TransactionSql): Promise<number> {
  const kind = payment.kind === 'topup_purchase' ? 'topup' : 'grant';
  const refunds = await refundsOf(payment.stripe?.paymentIntent ?? null, payment.stripe?.charge ?? null, current, tx);
  let total = 0;
  for (const refund of refunds) {
    // A refund naming no currency is in the payment's.
    const currency = refund.currency ?? payment.stripe?.currency ?? null;
    for (const step of refund.steps) {
      const done = await refundReversalsOf(kind, payment.userId, payment.externalRef!, tx);
      // A refund object already booked (at another running total, if Stripe's list changed since) is not booked twice.
      if (step.refundId && done.some((d) => d.refund === step.refundId)) continue;
      const before = Math.min(refund.amount, Math.max(0, ...done.map((d) => d.level)));
      if (before >= step.level) continue;
      const credits = payment.amount;
      const kept = (minor: number) => Math.floor((credits * (refund.amount - minor)) / refund.amount);
      const intended = kept(before) - kept(step.level);
      // A Pro period that is over (a later invoice or the subscription's end expired it) has nothing unspent left.
      const takeNothing = kind === 'grant' && !(await isCurrentPeriod(payment.externalRef ?? '', tx));
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
            refund: step.refundId,
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
      // Credits already spent are taken back later, as they come free, by a job whose state everyone sees.
      if (!takeNothing && intended > entry.amount) {
        await openShortfallRecovery(
          {
            ref: `refund:${refund.charge}@${step.level}`,
            userId: payment.userId,
            bucket: kind === 'topup' ? 'topup' : 'monthly',
            paymentRef: payment.externalRef!,
            refundId: step.refundId,
            currency,
            refundedMinor: step.level - before,
            credits: intended - entry.amount,
          },
          tx,
        );
      }
      total += entry.amount;
    }
  }
  return total;
}
