import type Stripe from 'stripe';
import { plans, type SubscriptionStatus } from '~/catalogue';
import { enqueueMany } from '~/queue/boss';
import { expireMonthly, forfeitTopUp, grantMonthly, type StripeOrigin } from '~/services/ledger.server';
import { sql, transaction, type Db, type TransactionSql } from '../../../db/client';
import { BillingError, stripe } from './errors.server';
import { applied, fromUnix, idOf, ignored, refused, type Outcome } from './outcome.server';
import { getSubscriptionInfo, type SubscriptionInfo } from './subscription-info.server';
import { currentStatus, existingUser, flag, lockUser, setStatus, userOfCustomer, type BillingUser } from './users.server';

// A user's Pro subscription: cancel and resume, its row (recorded on first sight, a second live one
// marked duplicate), and the state and end Stripe reports.

async function liveSubscription(userId: string, db: Db): Promise<string | null> {
  const [row] = await db<{ id: string }[]>`
    SELECT subscription_id AS id FROM billing_subscriptions WHERE user_id = ${userId} AND ended_at IS NULL AND duplicate_of IS NULL
    ORDER BY created_at DESC LIMIT 1`;
  return row?.id ?? null;
}

/** Cancels at the period end (the user keeps what they paid for until then). */
export async function cancelSubscription(user: BillingUser, db: Db = sql): Promise<SubscriptionInfo> {
  const client = stripe();
  const status = await currentStatus(user.id, db);
  const subscriptionId = status === 'pro' ? await liveSubscription(user.id, db) : null;
  if (!subscriptionId) throw new BillingError('no_active_subscription', 'No active subscription');
  const sub = await client.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
  await applySubscriptionState(sub, new Date(), null, db);
  return getSubscriptionInfo(user.id, db);
}

export async function resumeSubscription(user: BillingUser, db: Db): Promise<void> {
  const subscriptionId = await liveSubscription(user.id, db);
  if (!subscriptionId) throw new BillingError('no_active_subscription', 'No active subscription');
  const sub = await stripe().subscriptions.update(subscriptionId, { cancel_at_period_end: false });
  await applySubscriptionState(sub, new Date(), null, db);
}

export type SubscriptionRow = {
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
 * One Pro subscription per user, so nobody pays twice for one plan: a live one arriving while another is live is recorded
 * as its duplicate, flagged for finance, and the billing-duplicate job (enqueued in this
 * transaction) cancels it at Stripe and refunds it. One that has already ended is no duplicate.
 */
export async function linkSubscription(
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

export type LinkedSubscription = { userId: string; status: SubscriptionStatus; sub: SubscriptionRow };

/**
 * A subscription event's user and row, then `apply` under that user's lock: the user the
 * subscription is recorded for, else its customer's, else the one its metadata names; the
 * subscription is recorded on first sight (linkSubscription). Refused when no user is known or the
 * subscription is another user's.
 */
export async function withSubscription(
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
