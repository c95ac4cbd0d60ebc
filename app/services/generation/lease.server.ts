import type { Db } from '../../../db/client';
import { getLogger } from '~/runtime/logger.server';
import { extendHolds, holdKey } from '../ledger.server';
import { leaseHoldExpiry } from './rules.server';
import type { ClaimedItem } from './item.server';

// While a worker has an item, its lease (lease_until) and its hold move on together: a worker that
// dies stops renewing, the lease runs out and the item is revived elsewhere (claim.server.ts); a
// hold the sweeper voided meanwhile tells the worker to stop.

/** Thrown into an item's work when its hold is gone. */
export class HoldGone extends Error {}

/** Moves the item's hold on with its lease; false when the hold is no longer open (swept). */
export async function renewHold(item: Pick<ClaimedItem, 'resultId' | 'attempt'>, leaseSeconds: number, db: Db): Promise<boolean> {
  const key = holdKey(item.resultId, item.attempt);
  return (await extendHolds([key], leaseHoldExpiry(leaseSeconds), db)).includes(key);
}

/**
 * Renews the item's lease and its hold while the provider works, every third of a lease. `gone`
 * rejects when the ledger says the hold is no longer open (swept): the item must stop and end
 * failed, uncharged.
 */
export function startHeartbeat(item: ClaimedItem, leaseSeconds: number, db: Db) {
  const every = Math.max(250, (leaseSeconds * 1000) / 3);
  let signalGone: (err: HoldGone) => void = () => {};
  const gone = new Promise<never>((_, reject) => (signalGone = reject));
  gone.catch(() => {});
  const timer = setInterval(() => {
    void (async () => {
      await db`
        UPDATE generation_results SET lease_until = now() + make_interval(secs => ${leaseSeconds})
        WHERE id = ${item.resultId} AND attempt = ${item.attempt} AND status = 'processing'`;
      if (!(await renewHold(item, leaseSeconds, db))) {
        clearInterval(timer);
        signalGone(new HoldGone());
      }
    })().catch((err) => getLogger().warn({ err: String(err) }, 'generation heartbeat failed'));
  }, every);
  timer.unref();
  return { gone, stop: () => clearInterval(timer) };
}
