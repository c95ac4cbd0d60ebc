import type PgBoss from 'pg-boss';
import { queues } from '~/queue/queues';
import { attemptDuplicateRefund, DUPLICATE_REFUND_MAX_ATTEMPTS } from '~/services/billing/duplicates.server';
import { attemptShortfallRecovery, SHORTFALL_MAX_ATTEMPTS } from '~/services/billing/shortfalls.server';
import { processEvent } from '~/services/billing/stripe-events.server';
import { getLogger } from '~/runtime/logger.server';
import { jobSql } from '../../db/client';

// Handlers work on the jobs pool (db/client.ts), never on the web pool.

// Applies stored Stripe events (the webhook answered 200 once each was stored). A failure throws,
// so pg-boss retries that job with backoff; a replay books nothing twice (ledger keys).
export async function handleStripeEvent(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const failures: unknown[] = [];
  for (const job of jobs) {
    const { eventId } = queues['stripe-event'].payload.parse(job.data);
    try {
      const result = await processEvent(eventId, jobSql);
      if (result) getLogger().info({ eventId, ...result }, 'stripe event processed');
    } catch (err) {
      getLogger().warn({ eventId, err: (err as Error).message }, 'stripe event failed; will retry');
      failures.push(err);
    }
  }
  if (failures.length) throw failures[0];
}

// Cancels and refunds a duplicate Pro subscription at Stripe (idempotent). A failure is recorded and
// retried a bounded number of times; then the refund is marked failed for a person, not retried.
export async function handleBillingDuplicate(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  for (const job of jobs) {
    const { subscriptionId } = queues['billing-duplicate'].payload.parse(job.data);
    const result = await attemptDuplicateRefund(subscriptionId, DUPLICATE_REFUND_MAX_ATTEMPTS, jobSql);
    getLogger().info({ subscriptionId, ...result }, 'duplicate subscription resolved');
  }
}

// Takes a refund's shortfall back as credits come free. An attempt that leaves credits short throws,
// so pg-boss retries it later with backoff; once the attempts are spent it is marked failed for a
// person and the job ends.
export async function handleBillingShortfall(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const failures: unknown[] = [];
  for (const job of jobs) {
    const { ref } = queues['billing-shortfall'].payload.parse(job.data);
    try {
      const result = await attemptShortfallRecovery(ref, SHORTFALL_MAX_ATTEMPTS, jobSql);
      getLogger().info({ ref, ...result }, 'refund shortfall attempt');
    } catch (err) {
      getLogger().info({ ref, err: (err as Error).message }, 'refund shortfall still short; will retry');
      failures.push(err);
    }
  }
  if (failures.length) throw failures[0];
}
