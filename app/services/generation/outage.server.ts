import type { Db } from '../../../db/client';
import { getLogger } from '~/runtime/logger.server';
import { isDatabaseUnavailable } from '~/runtime/db-unavailable.server';
import { StorageUnavailable } from '~/runtime/object-storage.server';
import type { ClaimedItem } from './item.server';

// While the database (or the object storage of its images) is away an item is neither failed nor
// lost: its booking tries again for a while, then the item is handed back (its lease ended, its
// hold kept) for a worker to take it up once they answer.

/**
 * The database failed the item's work (lost connection, restart, timeout): the item was handed
 * back, its hold kept, for a worker to take it up again once the database answers. Not a failure
 * of the item: its job must stay active, for the lease to bring it back.
 */
export class HandedBack extends Error {
  constructor(readonly cause: unknown) {
    super('generation item handed back: the database failed');
  }
}

// SQLSTATEs of a transaction the database gave up on for reasons of its own, not of the query:
// serialization failure, deadlock, lock not available, statement timeout or cancel.
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014']);

/**
 * True when err is the database's, the connection's or the object storage's fault, not the item's:
 * worth doing again.
 */
export function isInfrastructureError(err: unknown): boolean {
  if (isDatabaseUnavailable(err) || err instanceof StorageUnavailable) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || code.startsWith('08'));
}

/** How long an item's booking keeps trying while the database is away, before its lease takes over. */
const BOOKING_RETRY_MS = 60_000;
const BOOKING_RETRY_MAX_DELAY_MS = 2000;

/**
 * Runs a write of the item's end, again and again (backoff up to 2 s) while the database fails
 * it, for BOOKING_RETRY_MS at most: the provider's answer is not thrown away for a blip. Every
 * such write is conditional on the item still being processing in its attempt, so a write that
 * did commit before its connection dropped is not done twice.
 */
export async function whileDatabaseRecovers<T>(item: Pick<ClaimedItem, 'resultId'>, write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + BOOKING_RETRY_MS;
  for (let delay = 100, tries = 1; ; delay = Math.min(2 * delay, BOOKING_RETRY_MAX_DELAY_MS), tries++) {
    try {
      return await write();
    } catch (err) {
      if (!isInfrastructureError(err) || Date.now() + delay > deadline) throw err;
      if (tries === 1) {
        const what = err instanceof StorageUnavailable ? 'object storage' : 'the database';
        getLogger().warn({ err: String(err), resultId: item.resultId }, `generation: ${what} failed a booking; trying again`);
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * Gives the item back after the database failed its work: its lease ends now (a worker's reaper
 * puts its job back in the queue), its hold stays open, and this delivery is not counted against
 * the item (it did not crash a worker). Throws HandedBack for the loop to leave the job active.
 */
export async function handBack(item: Pick<ClaimedItem, 'resultId' | 'attempt'>, cause: unknown, db: Db): Promise<never> {
  getLogger().warn({ err: String(cause), resultId: item.resultId }, 'generation: the database failed an item; handing it back');
  await whileDatabaseRecovers(
    item,
    () => db`
      UPDATE generation_results SET lease_until = now(), deliveries = greatest(deliveries - 1, 0)
      WHERE id = ${item.resultId} AND attempt = ${item.attempt} AND status = 'processing'`,
  ).catch(() => {}); // still down: the lease runs out by itself
  throw new HandedBack(cause);
}
