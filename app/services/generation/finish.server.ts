import { sql, transaction, type Db } from '../../../db/client';
import { getLogger } from '~/runtime/logger.server';
import type { FailureParams, GenerationFailure } from '~/utils/generation-errors';
import { SEARCH_TEXT_MAX } from '../results.server';
import { htmlToText } from '../providers.server';
import { holdKey, LedgerError, settleHoldCall, settleHolds, withLedgerErrors, type HoldOutcome } from '../ledger.server';
import { resultFinished, wantsResultEvents, wantsResultEventsSql } from '../webhooks.server';
import { linkWhenRunEnds } from '../internal-links.server';
import { indexCompletedShingles, indexShinglesWith, reportWithDuplicates } from '../quality/report.server';
import { discardImageObjects, insertImages, storeImageObjects } from '../images.server';
import { WAKE_CHANNEL } from './rules.server';
import { getRunProgress } from './progress.server';
import { WORKER_ID, type ClaimedItem, type ItemOutcome } from './item.server';
import type { Output } from './output.server';
import type { QualityReport } from '~/utils/quality/report';

// An item's end, booked exactly once: every write is conditional on the item still being
// `processing` in the same attempt, and the hold is posted or voided (through the ledger service)
// in the same statement (or transaction) as the row's final state, so a job delivered twice, a late worker, a
// cancel or a crash between the two can never change anything twice.

/**
 * Why an item failed, as stored: the code pages and the API translate (utils/generation-errors),
 * its parameters, and an English text for operators reading the table (never shown to a user).
 */
export type ItemFailure = { code: GenerationFailure; params?: FailureParams; text: string };

/** The item's workers kept stopping while it was at its provider (MAX_DELIVERIES). */
export const INTERRUPTED: ItemFailure = { code: 'interrupted', text: 'The worker stopped while generating this item.' };
/** The item's hold was voided by the sweeper (the work was abandoned too long): it is not charged. */
export const HOLD_GONE: ItemFailure = { code: 'hold_expired', text: 'This item took too long and was stopped; no credits were charged.' };

/** An item that failed for a reason of ours (not the provider's, not the database's). */
export const GENERATION_FAILED: ItemFailure = { code: 'internal', text: 'Generation failed. Please try again.' };

/** Marks the item failed with the failure's code and voids its hold (if still ours). */
export async function finishFailed(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  failure: ItemFailure,
  db: Db = sql,
): Promise<boolean> {
  const ended = await failItem(item, failure, db);
  if (ended) await itemEnded(item, db);
  return ended;
}

/**
 * After an item's end is committed: the run it ended may now be linked. The item is
 * booked whatever happens here; a failed enqueue only leaves the run for the user to link.
 */
export async function itemEnded(item: Pick<ClaimedItem, 'resultId' | 'userId'>, db: Db): Promise<void> {
  await linkWhenRunEnds(item.userId, { resultId: item.resultId }, db).catch((err) =>
    getLogger().warn({ err: String(err), resultId: item.resultId }, 'generation: the run could not be queued for linking'),
  );
}

class Gone extends Error {}

// A SQL fragment built with the same db (postgres.js PendingQuery).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fragment = any;

const isHoldGone = (err: unknown) => err instanceof LedgerError && err.code === 'already_resolved';

/**
 * The item's final state and its hold's outcome in one transaction: the row changes only if it is
 * still processing in this attempt, and the ledger settles the hold only for a row that changed.
 */
/** A finished row: its run, and a failure's code and English text (the result.failed event carries both). */
type FinishedRow = { id: string; runId: string; errorCode: string | null; error: string | null };

async function finishRow(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome | null,
  db: Db,
): Promise<FinishedRow | null> {
  const update = (d: Db) => d<FinishedRow[]>`
    UPDATE generation_results SET ${set(d)}, lease_until = NULL, updated_at = now()
    WHERE id = ${item.resultId} AND user_id = ${item.userId} AND attempt = ${item.attempt} AND status = 'processing'
    RETURNING id, run_id AS "runId", error_code AS "errorCode", error, pg_notify(${WAKE_CHANNEL}, ${WORKER_ID}) AS woken`;
  if (!outcome) return (await update(db))[0] ?? null;
  return transaction(db, async (tx) => {
    const [done] = await update(tx);
    if (!done) return null;
    await settleHolds([holdKey(item.resultId, item.attempt)], outcome, tx);
    return done;
  });
}

type SetFragment = (d: Db) => Fragment;

/** A completed post's shingle hashes; `indexed` once its booking indexed them (the one-statement booking). */
type Shingles = { hashes: number[]; indexed: boolean };

// Owners whose items lately found endpoints for their events: their next items go straight to the
// transaction, which asks again, so an entry gone stale costs one round trip, never a wrong booking.
const WANTED_MS = 60_000;
const wanted = new Map<string, number>();
const wantedLately = (userId: string) => (wanted.get(userId) ?? 0) > Date.now();
function rememberWanted(userId: string): void {
  if (wanted.size >= 10_000) wanted.clear();
  wanted.set(userId, Date.now() + WANTED_MS);
}

/**
 * The row's final state, its hold settled and a completed post's shingles indexed, in one
 * statement (one round trip, no transaction holding the item's lock across round trips), unless
 * the owner has an endpoint for these events: then nothing is written and 'wanted' says to book
 * in a transaction that records the events too (remembered a minute: see wantedLately).
 */
async function finishInOneStatement(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome,
  status: 'completed' | 'failed',
  flagged: boolean,
  shingles: Shingles | null,
  db: Db,
): Promise<ItemOutcome | 'wanted'> {
  const changed = db`EXISTS (SELECT 1 FROM done)`;
  const [row] = await withLedgerErrors(db<{ wants: boolean; done: boolean; settled: number }[]>`
    WITH wants AS MATERIALIZED (SELECT ${wantsResultEventsSql(item.userId, status, flagged, db)} AS wants),
    done AS (
      UPDATE generation_results SET ${set(db)}, lease_until = NULL, updated_at = now()
      WHERE id = ${item.resultId} AND user_id = ${item.userId} AND attempt = ${item.attempt} AND status = 'processing'
        AND NOT (SELECT wants FROM wants)
      RETURNING id, pg_notify(${WAKE_CHANNEL}, ${WORKER_ID}) AS woken),
    settled AS MATERIALIZED (SELECT count(*)::int AS n FROM done CROSS JOIN LATERAL ${settleHoldCall(holdKey(item.resultId, item.attempt), outcome, db)} AS e)
    ${shingles ? db`, ${indexShinglesWith(item.userId, item.resultId, shingles.hashes, changed, db)}` : db``}
    SELECT (SELECT wants FROM wants) AS wants, ${changed} AS done, (SELECT n FROM settled) AS settled`);
  if (row!.wants) return 'wanted';
  if (shingles) shingles.indexed = row!.done;
  return row!.done ? status : 'skipped';
}

/**
 * The final state, its hold's outcome and the webhook events it causes, in one transaction
 * (`set` is built on that transaction). An owner with no endpoint for these events (most) books
 * in one statement (finishInOneStatement, or the row alone when there is no hold to settle).
 * With endpoints, whether the owner wants the events is asked again beside the row's update in
 * the transaction, sent together. Skipped when the item was no longer ours. `shingles`: a
 * completed post's, indexed by a one-statement booking (else by the caller once it is booked).
 */
async function finishInTransaction(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome | null,
  status: 'completed' | 'failed',
  /** A completed post's failing report (result.flagged), else null. */
  flagged: QualityReport | null,
  shingles: Shingles | null,
  db: Db,
): Promise<ItemOutcome> {
  const inTransaction = 'savepoint' in db;
  if (!inTransaction && !outcome && !(await wantsResultEvents(item.userId, status, flagged !== null, db))) {
    return (await finishRow(item, set, outcome, db)) ? status : 'skipped';
  }
  for (let attempt = 1; ; attempt++) {
    try {
      if (!inTransaction && outcome && !wantedLately(item.userId)) {
        const booked = await finishInOneStatement(item, set, outcome, status, flagged !== null, shingles, db);
        if (booked !== 'wanted') return booked;
        rememberWanted(item.userId);
      }
      return await transaction(db, async (tx) => {
        const [wants, done] = await Promise.all([
          inTransaction || !outcome || wantsResultEvents(item.userId, status, flagged !== null, tx),
          finishRow(item, set, outcome, tx),
        ]);
        if (!done) return 'skipped';
        if (!wants) return status;
        const failure = { errorCode: done.errorCode, error: done.error };
        await resultFinished(
          { ...item, runId: done.runId, status, ...failure, flagged: status === 'completed' ? flagged : null },
          () => getRunProgress(item.userId, done.runId, tx),
          tx,
        );
        return status;
      });
    } catch (err) {
      // A deadlock victim (with a heartbeat or another item's booking) was rolled back whole: again.
      if (inTransaction || attempt >= 3 || (err as { code?: string })?.code !== '40P01') throw err;
    }
  }
}

/**
 * Books the outcome. A hold the sweeper already voided (ledger `already_resolved`): the item was
 * not paid for, so it never completes: it ends failed (HOLD_GONE), uncharged.
 */
async function finish(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome,
  flagged: QualityReport | null,
  shingles: Shingles | null,
  db: Db,
): Promise<ItemOutcome> {
  try {
    return await finishInTransaction(item, set, outcome, outcome === 'post' ? 'completed' : 'failed', flagged, shingles, db);
  } catch (err) {
    if (!isHoldGone(err)) throw err;
    getLogger().warn({ key: holdKey(item.resultId, item.attempt), outcome }, 'generation: hold was already resolved');
    const final: SetFragment = outcome === 'post' ? failedAs(HOLD_GONE) : set;
    return finishInTransaction(item, final, null, 'failed', null, null, db);
  }
}

/** Stores the output and posts the hold, atomically, if the item is still ours to finish. */
export async function finishCompleted(item: ClaimedItem, out: Output, db: Db): Promise<ItemOutcome> {
  const search = [
    out.title,
    (out.metadata.originalPrompt as string) ?? '',
    (out.metadata.translatedPrompt as string) ?? '',
    out.keywords ?? '',
    out.text ?? htmlToText(out.content),
  ]
    .join('\n')
    .slice(0, SEARCH_TEXT_MAX);
  // The report's near-duplicate lookup reads only indexes; the post's own shingles join them once it is booked.
  const report = out.quality ? await reportWithDuplicates(item.userId, item.resultId, out.quality, db) : null;
  const set: SetFragment = (d) => d`status = 'completed', title = ${out.title}, content = ${out.content},
    quality = ${report ? d.json(report as never) : null}, quality_status = ${report?.status ?? null}, approved_at = NULL,
    error = NULL, error_code = NULL, error_params = NULL,
    metadata = metadata || ${d.json(out.metadata as never)}, search_text = ${search}, completed_at = now(),
    seo_description = ${out.seo?.metaDescription ?? null}, seo_slug = ${out.seo?.slug ?? null}, seo_keyword = ${out.seo?.focusKeyword ?? null},
    seo_title = ${out.seo?.seoTitle || null}`;
  const shingles: Shingles | null = out.quality ? { hashes: out.quality.shingles, indexed: false } : null;
  const booked = await finishWithImages(item, out, set, report?.status === 'fail' ? report : null, shingles, db);
  if (booked === 'completed' && shingles && !shingles.indexed)
    await indexCompletedShingles(item.userId, item.resultId, shingles.hashes, db);
  return booked;
}

async function finishWithImages(
  item: ClaimedItem,
  out: Output,
  set: SetFragment,
  flagged: QualityReport | null,
  shingles: Shingles | null,
  db: Db,
): Promise<ItemOutcome> {
  if (out.images.length === 0) return finish(item, set, 'post', flagged, shingles, db);
  // With object storage, the objects are written before any row points at them: a storage failure
  // here (StorageUnavailable) books nothing, and the booking is tried again like a database failure.
  const keys = await storeImageObjects(out.images);
  try {
    return await transaction(db, async (tx) => {
      await insertImages(item, out.images, keys, tx);
      if ((await finishInTransaction(item, set, 'post', 'completed', flagged, null, tx)) === 'skipped') throw new Gone();
      return 'completed' as const;
    });
  } catch (err) {
    const unbooked = err instanceof Gone || isHoldGone(err);
    if (unbooked) await discardImageObjects(keys, db);
    if (err instanceof Gone) return 'skipped';
    // The hold was swept: the images are rolled back with the transaction, the item ends failed.
    if (isHoldGone(err)) return finish(item, failedAs(HOLD_GONE), 'void', null, null, db);
    throw err;
  }
}

/** The columns of a failed item: its code and parameters for the reader, its text for operators. */
function failedAs(failure: ItemFailure): SetFragment {
  return (d) =>
    d`status = 'failed', error = ${failure.text}, error_code = ${failure.code}, error_params = ${failure.params ? d.json(failure.params) : null}`;
}

export async function failItem(item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>, failure: ItemFailure, db: Db): Promise<boolean> {
  return (await finish(item, failedAs(failure), 'void', null, null, db)) !== 'skipped';
}
