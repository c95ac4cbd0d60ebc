import { enqueueMany } from '~/queue/boss';
import { queues } from '~/queue/queues';
import { duplicateRefundState, type DuplicateRefundState } from '~/services/duplicate-refund-state.server';
import { sql, transaction, type Db } from '../../../db/client';
import { stripe } from './errors.server';
import { CLOSE_NOTE_MAX, recordAdminAction } from './admin-actions.server';
import { applied, idOf, ignored, refused, type Outcome } from './outcome.server';

// A second Pro subscription, bought by a race of two checkouts: canceled and refunded at Stripe by
// a bounded job whose state finance and the user both see.

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
      AND duplicate_resolved_at IS NULL AND duplicate_refund_failed_at IS NULL AND duplicate_refund_closed_at IS NULL
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
  const [row] = await db<{ userId: string; duplicateOf: string | null; resolvedAt: Date | null; closedAt: Date | null }[]>`
    SELECT user_id AS "userId", duplicate_of AS "duplicateOf", duplicate_resolved_at AS "resolvedAt",
      duplicate_refund_closed_at AS "closedAt"
    FROM billing_subscriptions WHERE subscription_id = ${subscriptionId}`;
  if (!row?.duplicateOf) return ignored('not a duplicate subscription');
  if (row.resolvedAt) return ignored('already canceled and refunded');
  if (row.closedAt) return ignored('closed by hand');
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
      closedAt: Date | null;
      lastError: string | null;
      attempts: number;
    }[]
  >`
    SELECT created_at AS "startedAt", refunded_cents AS "refundedCents", duplicate_resolved_at AS "resolvedAt",
      duplicate_refund_failed_at AS "failedAt", duplicate_refund_closed_at AS "closedAt", duplicate_refund_last_error AS "lastError", duplicate_refund_attempts AS attempts
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
// What an admin does with a refund whose attempts are spent

/**
 * Starts a failed duplicate refund over: attempts reset, back to pending, the job enqueued again (in
 * the same transaction), the admin's retry recorded. False unless the refund is failed (and not
 * closed): a refund under way or done is not started twice.
 */
export async function retryDuplicateRefund(subscriptionId: string, adminId: string, db: Db = sql): Promise<boolean> {
  return transaction(db, async (tx) => {
    const [row] = await tx`
      UPDATE billing_subscriptions
      SET duplicate_refund_attempts = 0, duplicate_refund_failed_at = NULL, duplicate_refund_last_error = NULL, updated_at = now()
      WHERE subscription_id = ${subscriptionId} AND duplicate_of IS NOT NULL AND duplicate_resolved_at IS NULL
        AND duplicate_refund_failed_at IS NOT NULL AND duplicate_refund_closed_at IS NULL
      RETURNING subscription_id`;
    if (!row) return false;
    const ref = `duplicate_subscription:${subscriptionId}`;
    await tx`UPDATE billing_finance_flags SET detail = detail || ${tx.json({ refundState: 'pending', attempts: 0, lastError: null } as never)}
      WHERE ref = ${ref}`;
    await recordAdminAction('duplicate_refund_retry', ref, adminId, null, tx);
    await enqueueMany('billing-duplicate', [{ payload: { subscriptionId } }], tx);
    return true;
  });
}

/**
 * Closes a failed duplicate refund that a person settled by hand (e.g. refunded in Stripe's
 * dashboard): kept with who, when and their note, its flag acknowledged, and from then on settled
 * for `reconcile`. False unless the refund is failed and not closed yet, or the note is empty.
 */
export async function closeDuplicateRefund(subscriptionId: string, adminId: string, note: string, db: Db = sql): Promise<boolean> {
  const text = note.trim().slice(0, CLOSE_NOTE_MAX);
  if (!text) return false;
  return transaction(db, async (tx) => {
    const [row] = await tx`
      UPDATE billing_subscriptions
      SET duplicate_refund_closed_at = now(), duplicate_refund_closed_by = ${adminId}, duplicate_refund_close_note = ${text},
        updated_at = now()
      WHERE subscription_id = ${subscriptionId} AND duplicate_of IS NOT NULL AND duplicate_resolved_at IS NULL
        AND duplicate_refund_failed_at IS NOT NULL AND duplicate_refund_closed_at IS NULL
      RETURNING subscription_id`;
    if (!row) return false;
    const ref = `duplicate_subscription:${subscriptionId}`;
    await tx`UPDATE billing_finance_flags
      SET detail = detail || ${tx.json({ refundState: 'closed', closeNote: text } as never)},
        acknowledged_at = coalesce(acknowledged_at, now()), acknowledged_by = coalesce(acknowledged_by, ${adminId})
      WHERE ref = ${ref}`;
    await recordAdminAction('duplicate_refund_close', ref, adminId, text, tx);
    return true;
  });
}
