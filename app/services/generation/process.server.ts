import { sql, type Db } from '../../../db/client';
import { env } from '~/runtime/env.server';
import { getLogger } from '~/runtime/logger.server';
import { providerKey } from '../api-keys.server';
import { ProviderError } from '../providers.server';
import { HandedBack, handBack, isInfrastructureError, whileDatabaseRecovers } from './outage.server';
import { HoldGone, renewHold, startHeartbeat } from './lease.server';
import { runImage, runText, type Output } from './output.server';
import { runPlanFirst, type PlanOutput } from './plan-step.server';
import { bookPlanned, isPlanFirst, planStateOf } from './plans.server';
import { failItem, finishCompleted, GENERATION_FAILED, HOLD_GONE, INTERRUPTED, itemEnded, type ItemFailure } from './finish.server';
import {
  MAX_DELIVERIES,
  SlotWithdrawn,
  type ClaimedItem,
  type ItemOutcome,
  type ItemRow,
  type KeyLookup,
  type ProcessOptions,
} from './item.server';

// One claimed item, from its slot to its booked end: the provider's work under a heartbeat, then
// finish.server.ts books what came of it. A database failure on the way hands it back
// (outage.server.ts).

/** Generates one claimed item and books its outcome. Never throws for provider failures. */
export async function processItem(item: ClaimedItem, opts: ProcessOptions = {}, db: Db = sql): Promise<ItemOutcome> {
  const outcome = await generateItem(item, opts, db);
  if (outcome !== 'skipped' && outcome !== 'planned') {
    if (opts.ended) opts.ended(item);
    else await itemEnded(item, db);
  }
  return outcome;
}

/** A provider's failure as stored: its message, for operators, stays in English. */
function providerFailure(err: ProviderError): ItemFailure {
  return { code: err.code, params: err.params, text: err.message.slice(0, 1000) };
}

async function generateItem(item: ClaimedItem, opts: ProcessOptions, db: Db): Promise<ItemOutcome> {
  if (!item.leased) return 'skipped';
  if (item.deliveries > MAX_DELIVERIES) {
    return (await whileDatabaseRecovers(item, () => failItem(item, INTERRUPTED, db))) ? 'failed' : 'skipped';
  }
  const leaseSeconds = item.leaseSeconds ?? env.GENERATION_LEASE_SECONDS;
  // A hold already swept (the item waited or was abandoned too long) ends the item failed and
  // uncharged. The claim usually brings the row; otherwise it is read with the hold's renewal.
  const row =
    item.row ??
    (await readRow(item, leaseSeconds, db).catch((err) => (isInfrastructureError(err) ? handBack(item, err, db) : Promise.reject(err))));
  if (!row) return 'skipped';
  if (!row.held) return (await whileDatabaseRecovers(item, () => failItem(item, HOLD_GONE, db))) ? 'failed' : 'skipped';

  // The heartbeat runs until the item is booked: it keeps the lease and the hold while a booking
  // waits for the database to come back.
  const heartbeat = startHeartbeat(item, leaseSeconds, db);
  try {
    const output = await generateOutput(item, row, opts, heartbeat.gone, db);
    if ('plan' in output) return await whileDatabaseRecovers(item, () => bookPlan(item, output, db));
    if (!('failure' in output)) return await whileDatabaseRecovers(item, () => finishCompleted(item, output, db));
    const ended = await whileDatabaseRecovers(item, () => failItem(item, output.failure, db));
    return ended ? 'failed' : 'skipped';
  } catch (err) {
    if (err instanceof SlotWithdrawn) return 'skipped';
    if (err instanceof HandedBack) throw err;
    if (isInfrastructureError(err)) return handBack(item, err, db);
    throw err;
  } finally {
    heartbeat.stop();
  }
}

/**
 * The provider's work for the item: its output, or the failure to book (a provider's or the
 * content's). A database failure meanwhile hands the item back (HandedBack); a withdrawn slot
 * throws SlotWithdrawn.
 */
async function generateOutput(
  item: ClaimedItem,
  row: ItemRow,
  opts: ProcessOptions,
  gone: Promise<never>,
  db: Db,
): Promise<Output | PlanOutput | { failure: ItemFailure }> {
  const keyOf: KeyLookup = opts.keyOf ?? ((userId, provider) => providerKey(userId, provider, db));
  // A plan-first item's step is read while it waits for its slot, like its key.
  const planState = row.type === 'text' && isPlanFirst(row.settings) ? planStateOf(item, db) : null;
  planState?.catch(() => {});
  try {
    if (opts.slot) {
      // The key is looked up while the item waits, so a freed slot sends it at once.
      keyOf(item.userId, row.type === 'text' ? 'openrouter' : 'replicate').catch(() => {});
      await Promise.race([opts.slot(), gone]);
    }
    const answered = async () => void (await opts.onAnswered?.());
    const work: Promise<Output | PlanOutput> =
      row.type === 'image'
        ? runImage(item, row, keyOf, answered)
        : isPlanFirst(row.settings)
          ? runPlanFirst(item, row, await planState!, keyOf, answered, opts.calls, db)
          : runText(item, row, keyOf, answered);
    work.catch(() => {}); // abandoned when the hold goes
    return await Promise.race([work, gone]);
  } catch (err) {
    void opts.onAnswered?.();
    if (err instanceof SlotWithdrawn) throw err;
    if (err instanceof HoldGone) return { failure: HOLD_GONE };
    if (err instanceof ProviderError) return { failure: providerFailure(err) };
    if (isInfrastructureError(err)) return handBack(item, err, db);
    // A fault of ours: logged with its stack; the user reads a plain sentence, never its text.
    getLogger().error({ err, resultId: item.resultId }, 'generation item error');
    return { failure: GENERATION_FAILED };
  }
}

/** A plan made: the item waits `planned` (a hold the sweeper took meanwhile ends it failed, uncharged). */
async function bookPlan(item: ClaimedItem, output: PlanOutput, db: Db): Promise<ItemOutcome> {
  const booked = await bookPlanned(item, output.plan, output.research, db);
  if (booked !== 'hold_gone') return booked;
  return (await failItem(item, HOLD_GONE, db)) ? 'failed' : 'skipped';
}

/** The item's row, if still processing in this attempt, and the renewal of its hold with the lease. */
async function readRow(item: ClaimedItem, leaseSeconds: number, db: Db): Promise<(ItemRow & { held: boolean }) | undefined> {
  const [row] = await db<ItemRow[]>`
    SELECT r.id, r.type, r.prompt, r.model, g.settings, r.metadata
    FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.id = ${item.resultId} AND r.user_id = ${item.userId} AND r.attempt = ${item.attempt} AND r.status = 'processing'`;
  if (!row) return undefined;
  return { ...row, held: await renewHold(item, leaseSeconds, db) };
}
