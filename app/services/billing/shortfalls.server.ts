import { enqueueMany } from '~/queue/boss';
import { queues } from '~/queue/queues';
import { moneyActionState, type MoneyActionState } from '~/services/duplicate-refund-state.server';
import { getCreditSummary, recoverShortfall } from '~/services/ledger.server';
import { sql, transaction, type Db, type TransactionSql } from '../../../db/client';
import { CLOSE_NOTE_MAX, recordAdminAction } from './admin-actions.server';
import { applied, ignored, refused, type Outcome } from './outcome.server';
import { lockUser } from './users.server';

// A refund that reverses credits already spent books what the bucket held; the rest, the
// shortfall, would otherwise stay with the user unseen. It is taken back later, as credits come
// free (a hold released, a later top-up), by a bounded job whose state finance and the user see:
// pending, retrying (attempts, last error code), done, or failed once the attempts are spent (its
// refund flag reopens for a person, who may retry it or close it with a note).

/** How many times the billing-shortfall job tries before the shortfall is left to a person (pg-boss's retries + 1). */
export const SHORTFALL_MAX_ATTEMPTS = (queues['billing-shortfall'].options.retryLimit ?? 0) + 1;

/** The first attempt waits a little: right after the refund the bucket is empty, so an immediate try could only fail. */
const FIRST_ATTEMPT_DELAY_MS = 15 * 60 * 1000;

/** The error codes an attempt records: nothing free to take yet, or a Pro period that is over (nothing of it is left to take). */
export type ShortfallErrorCode = 'insufficient_credits' | 'period_over';

export type ShortfallOpening = {
  ref: string;
  userId: string;
  bucket: 'topup' | 'monthly';
  paymentRef: string;
  refundId: string | null;
  currency: string | null;
  refundedMinor: number;
  credits: number;
};

/** Records a refund step's shortfall (once per step) and enqueues its job, in the refund's transaction. */
export async function openShortfallRecovery(s: ShortfallOpening, tx: TransactionSql): Promise<void> {
  if (s.credits <= 0) return;
  const inserted = await tx`
    INSERT INTO billing_shortfall_recoveries (ref, user_id, bucket, payment_ref, refund_id, currency, refunded_minor, credits_short)
    VALUES (${s.ref}, ${s.userId}, ${s.bucket}, ${s.paymentRef}, ${s.refundId}, ${s.currency}, ${s.refundedMinor}, ${s.credits})
    ON CONFLICT (ref) DO NOTHING RETURNING ref`;
  if (inserted.length === 0) return;
  await enqueueMany('billing-shortfall', [{ payload: { ref: s.ref }, startAfter: new Date(Date.now() + FIRST_ATTEMPT_DELAY_MS) }], tx);
}

/** Whether a Pro grant's period (its ledger ref, `<subscription>:<period start>`) is still the subscription's current one. */
export async function isCurrentPeriod(ref: string, db: Db): Promise<boolean> {
  const at = ref.indexOf(':');
  if (at < 0) return false;
  const [row] = await db<{ current: boolean }[]>`
    SELECT ended_at IS NULL AND granted_period_start = ${ref.slice(at + 1)}::timestamptz AS current
    FROM billing_subscriptions WHERE subscription_id = ${ref.slice(0, at)}`;
  return Boolean(row?.current);
}

type Claimed = {
  userId: string;
  bucket: 'topup' | 'monthly';
  paymentRef: string;
  short: number;
  recovered: number;
  attempts: number;
};

/**
 * One attempt of the billing-shortfall job, counted like the duplicate refund's: under the user's
 * lock it takes what the bucket holds now, up to what is still short. Taken in full: done. Else the
 * attempt and its error code are kept and thrown for the queue to retry, until the attempts are
 * spent; then failed, its flag reopened, and the job ends without throwing, so it never loops.
 */
export async function attemptShortfallRecovery(ref: string, maxAttempts = SHORTFALL_MAX_ATTEMPTS, db: Db = sql): Promise<Outcome> {
  const result = await transaction(db, async (tx) => {
    const [owner] = await tx<{ userId: string }[]>`SELECT user_id AS "userId" FROM billing_shortfall_recoveries WHERE ref = ${ref}`;
    if (!owner || !(await lockUser(owner.userId, tx))) return null;
    const [r] = await tx<Claimed[]>`
      UPDATE billing_shortfall_recoveries SET attempts = attempts + 1, last_attempt_at = now()
      WHERE ref = ${ref} AND done_at IS NULL AND failed_at IS NULL AND closed_at IS NULL
      RETURNING user_id AS "userId", bucket, payment_ref AS "paymentRef", credits_short AS short,
        credits_recovered AS recovered, attempts`;
    if (!r) return null;
    let error: ShortfallErrorCode | null = null;
    let taken = 0;
    if (r.bucket === 'monthly' && !(await isCurrentPeriod(r.paymentRef, tx))) {
      error = 'period_over';
    } else {
      const summary = await getCreditSummary(r.userId, tx);
      const free = r.bucket === 'topup' ? summary.topUpCreditsRemaining : summary.creditsRemaining;
      const want = Math.min(r.short - r.recovered, Math.max(0, free));
      if (want > 0) {
        const row = await recoverShortfall(
          {
            bucket: r.bucket,
            userId: r.userId,
            key: `${ref}#${r.attempts}`,
            ref,
            credits: want,
            reason: `Refund shortfall taken back (${ref})`,
          },
          tx,
        );
        taken = row.amount;
      }
      if (r.recovered + taken < r.short) error = 'insufficient_credits';
    }
    // A period that is over will never have anything to take: no point in trying again.
    const failed = error !== null && (error === 'period_over' || r.attempts >= maxAttempts);
    const state: MoneyActionState = error === null ? 'done' : failed ? 'failed' : 'retrying';
    await tx`UPDATE billing_shortfall_recoveries
      SET credits_recovered = credits_recovered + ${taken}, last_error = ${error},
        done_at = ${state === 'done' ? new Date() : null}, failed_at = ${failed ? new Date() : null}
      WHERE ref = ${ref}`;
    await tx`UPDATE billing_finance_flags
      SET detail = detail || ${tx.json({ recoveryState: state, recoveryAttempts: r.attempts, recovered: r.recovered + taken, recoveryError: error } as never)},
        acknowledged_at = CASE WHEN ${failed} THEN NULL ELSE acknowledged_at END,
        acknowledged_by = CASE WHEN ${failed} THEN NULL ELSE acknowledged_by END
      WHERE ref = ${ref}`;
    return { state, attempts: r.attempts, taken, error, left: r.short - r.recovered - taken };
  });
  if (!result) return ignored('not an outstanding shortfall');
  if (result.state === 'done') return applied(`shortfall taken back (${result.taken} now)`);
  if (result.state === 'failed')
    return refused(`shortfall of ${result.left} credits left after ${result.attempts} attempts: ${result.error}`);
  throw new ShortfallPending(`${result.left} credits still short (${result.error}); retrying`);
}

/** Thrown by an attempt that left credits short, so the queue tries again later. */
export class ShortfallPending extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShortfallPending';
  }
}

/** Starts a failed shortfall over: attempts reset, pending, the job enqueued again, the retry recorded. False unless failed. */
export async function retryShortfallRecovery(ref: string, adminId: string, db: Db = sql): Promise<boolean> {
  return transaction(db, async (tx) => {
    const [row] = await tx`
      UPDATE billing_shortfall_recoveries SET attempts = 0, failed_at = NULL, last_error = NULL
      WHERE ref = ${ref} AND failed_at IS NOT NULL AND done_at IS NULL AND closed_at IS NULL RETURNING ref`;
    if (!row) return false;
    await tx`UPDATE billing_finance_flags SET detail = detail || ${tx.json({ recoveryState: 'pending', recoveryAttempts: 0, recoveryError: null } as never)}
      WHERE ref = ${ref}`;
    await recordAdminAction('shortfall_retry', ref, adminId, null, tx);
    await enqueueMany('billing-shortfall', [{ payload: { ref } }], tx);
    return true;
  });
}

/** Closes a failed shortfall a person has decided on (e.g. written off), with their note; then settled for `reconcile`. */
export async function closeShortfallRecovery(ref: string, adminId: string, note: string, db: Db = sql): Promise<boolean> {
  const text = note.trim().slice(0, CLOSE_NOTE_MAX);
  if (!text) return false;
  return transaction(db, async (tx) => {
    const [row] = await tx`
      UPDATE billing_shortfall_recoveries SET closed_at = now(), closed_by = ${adminId}, close_note = ${text}
      WHERE ref = ${ref} AND failed_at IS NOT NULL AND done_at IS NULL AND closed_at IS NULL RETURNING ref`;
    if (!row) return false;
    await tx`UPDATE billing_finance_flags
      SET detail = detail || ${tx.json({ recoveryState: 'closed', closeNote: text } as never)},
        acknowledged_at = coalesce(acknowledged_at, now()), acknowledged_by = coalesce(acknowledged_by, ${adminId})
      WHERE ref = ${ref}`;
    await recordAdminAction('shortfall_close', ref, adminId, text, tx);
    return true;
  });
}

export type ShortfallView = {
  createdAt: string;
  currency: string | null;
  refundedMinor: number | null;
  creditsShort: number;
  creditsRecovered: number;
  state: MoneyActionState;
  attempts: number;
};

/** The user's refund shortfalls of the last 60 days, for the subscription page. */
export async function recentShortfalls(userId: string, db: Db = sql): Promise<ShortfallView[]> {
  const rows = await db<
    {
      createdAt: Date;
      currency: string | null;
      refundedMinor: string | null;
      short: number;
      recovered: number;
      doneAt: Date | null;
      failedAt: Date | null;
      closedAt: Date | null;
      lastError: string | null;
      attempts: number;
    }[]
  >`
    SELECT created_at AS "createdAt", currency, refunded_minor AS "refundedMinor", credits_short AS short,
      credits_recovered AS recovered, done_at AS "doneAt", failed_at AS "failedAt", closed_at AS "closedAt",
      last_error AS "lastError", attempts
    FROM billing_shortfall_recoveries
    WHERE user_id = ${userId} AND created_at > now() - interval '60 days'
    ORDER BY created_at DESC`;
  return rows.map((r) => ({
    createdAt: r.createdAt.toISOString(),
    currency: r.currency,
    refundedMinor: r.refundedMinor === null ? null : Number(r.refundedMinor),
    creditsShort: r.short,
    creditsRecovered: r.recovered,
    state: moneyActionState(r),
    attempts: r.attempts,
  }));
}
