import { getSql, sql, type Db } from '../db/client';
import { getBoss } from './boss';
import { GENERATE_QUEUE, leaseHoldExpiry, WAKE_CHANNEL } from '~/services/generation.server';
import { providerKey, type Provider } from '~/services/api-keys.server';
import { processItem, WORKER_ID, type ClaimedItem, type ItemRow, type KeyLookup } from '~/services/generation-worker.server';
import { env } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';
import { singleton } from '~/utils/singleton.server';

// The generation worker of a process: a hand-written fetch/complete loop over the `generate-item`
// queue (pg-boss's work() sleeps a polling interval after every fetch; see TOOLING.md).
// - GENERATION_CONCURRENCY items at the provider; a slot frees the moment the provider answers
//   and is refilled at once (slots freed together are refilled by one claim); the answered item's
//   conversion and booking wait for that refill, so new requests go out first.
// - GENERATION_CONCURRENCY_PER_USER per user across ALL processes: a claim takes a lease on the
//   result row (lease_until), and claims are serialised by one advisory lock, so the count of live
//   leases is exact (generation_claim, db/functions/generation.sql). Jobs of a user at the cap are
//   simply not fetched.
// - Woken by NOTIFY (sent in the enqueuing transaction and when an item ends) and by a 1 s poll.
// - Fair: jobs are fetched by pg-boss priority (minus the item's position in its run), so runs
//   interleave and one user's single item is never behind another's thousand.
// - Crash-safe: a job whose item's lease expired (its worker was killed) is put back in the queue;
//   an item claimed more than MAX_DELIVERIES times ends failed and refunded.

const POLL_MS = 1000;
const REAP_MS = 5000;
/** The longest an answered item waits for its slot's refill before its booking goes ahead. */
const GATE_MAX_MS = 1000;
/** How long a claim for a few free slots waits for more to free. */
const COALESCE_MS = 10;

/** Claims up to n jobs for this process, at most `perUser` items per user in flight in total. */
export async function claimItems(
  n: number,
  perUser: number,
  leaseSeconds: number,
  db = getSql(),
  /** This process's items whose provider already answered (being booked): not counted as busy. */
  answered: string[] = [],
): Promise<ClaimedItem[]> {
  if (n <= 0) return [];
  // One round trip: the claim is db/functions/generation.sql's generation_claim (why it is there).
  const rows = await db<
    {
      jobId: string;
      jobData: { resultId: string; userId: string; attempt: number };
      leased: boolean;
      deliveries: number | null;
      item: (ItemRow & { held: boolean | null }) | null;
    }[]
  >`
    SELECT job_id AS "jobId", job_data AS "jobData", leased, deliveries, item
    FROM generation_claim(${GENERATE_QUEUE}, ${n}, ${perUser}, ${leaseSeconds}, ${leaseHoldExpiry(leaseSeconds)}, ${answered}::uuid[])`;
  return rows.map((r) => ({
    jobId: r.jobId,
    resultId: r.jobData.resultId,
    userId: r.jobData.userId,
    attempt: r.jobData.attempt,
    leased: r.leased,
    deliveries: r.deliveries ?? 0,
    leaseSeconds,
    row: r.item ? { ...r.item, held: r.item.held === true } : undefined,
  }));
}

/** Marks jobs done (pg-boss's complete, batched). */
async function completeJobs(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const boss = await getBoss();
  await boss.complete(GENERATE_QUEUE, ids);
}

/**
 * Puts back jobs whose item's lease expired (its worker died): they are fetched again at once.
 * Also frees leases left on items that are no longer processing.
 */
export async function reviveAbandoned(db: Db = sql): Promise<number> {
  const rows = await db`
    UPDATE pgboss.job j SET state = 'retry', start_after = now()
    FROM generation_results r
    WHERE j.name = ${GENERATE_QUEUE} AND j.state = 'active'
      AND r.id = (j.data->>'resultId')::uuid AND r.attempt = (j.data->>'attempt')::int
      AND r.status = 'processing' AND r.lease_until IS NOT NULL AND r.lease_until < now()
    RETURNING j.id`;
  return rows.count;
}

/** A key lookup that asks the database once per user and provider (the items of one claim). */
function memoKeys(): KeyLookup & { settled: () => Promise<unknown> } {
  const memo = new Map<string, Promise<string | null>>();
  const lookup = (userId: string, provider: Provider) => {
    const k = `${provider}:${userId}`;
    let key = memo.get(k);
    if (!key) memo.set(k, (key = providerKey(userId, provider)));
    return key;
  };
  return Object.assign(lookup, { settled: () => Promise.allSettled(memo.values()) });
}

export type GenerationLoop = {
  /** Items being processed now. */
  inFlight: () => number;
  wake: () => void;
  stop: () => Promise<void>;
};

// One loop per process (server.ts and the Remix build are two module graphs).
const holder = singleton<{ loop?: GenerationLoop }>('generation-loop', () => ({}));

type LoopOptions = { concurrency?: number; perUser?: number; leaseSeconds?: number };

/** Starts this process's loop (once per process). */
export async function startGenerationLoop(opts: LoopOptions = {}): Promise<GenerationLoop> {
  if (holder.loop) return holder.loop;
  const concurrency = opts.concurrency ?? env.GENERATION_CONCURRENCY;
  const perUser = opts.perUser ?? env.GENERATION_CONCURRENCY_PER_USER;
  const leaseSeconds = opts.leaseSeconds ?? env.GENERATION_LEASE_SECONDS;
  const logger = getLogger();
  const inFlight = new Map<string, Promise<void>>();
  let stopping = false;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopping) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  await getBoss();
  const listener = await getSql().listen(WAKE_CHANNEL, (payload) => {
    if (payload !== WORKER_ID) wake();
  });
  const pending: string[] = [];
  let flushing: Promise<void> | null = null;
  const flush = async () => {
    while (pending.length) {
      const ids = pending.splice(0, pending.length);
      await completeJobs(ids).catch((err) => logger.error({ err: String(err) }, 'generation: complete failed'));
    }
  };

  // A slot is taken while the provider works on an item; once it has answered, the item moves to
  // `booking` (its result and hold are being written) and the slot is refilled at once.
  // The item's CPU work (conversion, booking) waits until the claim that refills its slot has
  // dispatched: when many answers land together, new requests go out first.
  const booking = new Map<string, { resultId: string; task: Promise<void> }>();
  let answeredSeq = 0;
  let refillWaiters: { seq: number; resolve: () => void }[] = [];
  const refilled = (upTo: number) => {
    const ready = refillWaiters.filter((w) => w.seq <= upTo);
    refillWaiters = refillWaiters.filter((w) => w.seq > upTo);
    for (const w of ready) w.resolve();
  };
  const run = (item: ClaimedItem, keyOf: KeyLookup) => {
    let answered = false;
    const onAnswered = () => {
      if (answered) return;
      answered = true;
      booking.set(item.jobId, { resultId: item.resultId, task });
      inFlight.delete(item.jobId);
      wake();
      if (stopping) return;
      const seq = ++answeredSeq;
      const gate = new Promise<void>((resolve) => refillWaiters.push({ seq, resolve }));
      return Promise.race([gate, new Promise<void>((r) => setTimeout(r, GATE_MAX_MS))]);
    };
    const task: Promise<void> = (async () => {
      try {
        await processItem(item, undefined, { keyOf, onAnswered });
        pending.push(item.jobId);
      } catch (err) {
        // A database failure while booking: the lease expires and the job is revived.
        logger.error({ err: String(err), resultId: item.resultId }, 'generation: item could not be booked');
      } finally {
        inFlight.delete(item.jobId);
        booking.delete(item.jobId);
        flushing ??= flush().finally(() => (flushing = null));
        wake();
      }
    })();
    if (!answered) inFlight.set(item.jobId, task);
  };

  let lastReap = 0;
  const loop = (async () => {
    while (!stopping) {
      woken = false;
      // Answers land together (runs start together): when only a few slots are free, give the
      // others a moment to free theirs, so that one claim serves them all.
      if (concurrency - inFlight.size < concurrency / 2) await new Promise((r) => setTimeout(r, COALESCE_MS));
      const seen = answeredSeq;
      try {
        if (Date.now() - lastReap > REAP_MS) {
          lastReap = Date.now();
          const revived = await reviveAbandoned();
          if (revived > 0) logger.warn({ revived }, 'generation: abandoned items put back in the queue');
        }
        // Bookings are quick, but never let them pile up beyond a second round of slots.
        const free = Math.min(concurrency - inFlight.size, 2 * concurrency - inFlight.size - booking.size);
        if (free > 0) {
          const answered = [...booking.values()].map((b) => b.resultId);
          const items = await claimItems(free, perUser, leaseSeconds, undefined, answered);
          const keyOf = memoKeys(); // one key lookup per user and provider for the batch
          for (const item of items) run(item, keyOf);
          await keyOf.settled();
          if (items.length > 0 && items.length === free) continue;
        }
      } catch (err) {
        if (!stopping) logger.error({ err: String(err) }, 'generation: claim failed');
      } finally {
        refilled(seen);
      }
      await nap(POLL_MS);
    }
  })();

  const handle: GenerationLoop = {
    inFlight: () => inFlight.size + booking.size,
    wake,
    stop: async () => {
      stopping = true;
      wake();
      await loop;
      refilled(Infinity);
      // Items in flight get a moment to finish; the rest are left to their lease (revived elsewhere).
      await Promise.race([
        Promise.allSettled([...inFlight.values(), ...[...booking.values()].map((b) => b.task)]),
        new Promise((r) => setTimeout(r, 5000)),
      ]);
      if (inFlight.size + booking.size > 0) {
        const ids = [...inFlight.keys(), ...booking.keys()];
        await sql`
          UPDATE generation_results r SET lease_until = now()
          FROM pgboss.job j WHERE j.id = ANY(${ids}::uuid[]) AND r.id = (j.data->>'resultId')::uuid AND r.status = 'processing'`.catch(
          () => {},
        );
      }
      await (flushing ?? Promise.resolve());
      await flush();
      await listener.unlisten().catch(() => {});
      if (holder.loop === handle) holder.loop = undefined;
    },
  };
  holder.loop = handle;
  return handle;
}

/** Stops this process's loop if one runs (graceful shutdown). */
export async function stopGenerationLoop(): Promise<void> {
  await holder.loop?.stop();
}
