import { getJobSql, jobSql, transaction, type Db } from '../db/client';
import { getBoss } from '~/queue/boss';
import { CANCELED_SIGNAL, GENERATE_QUEUE, leaseHoldExpiry, WAKE_CHANNEL } from '~/services/generation-rules.server';
import { providerKey, type Provider } from '~/services/api-keys.server';
import { extendHolds, holdKey } from '~/services/ledger.server';
import {
  HandedBack,
  isInfrastructureError,
  processItem,
  SlotWithdrawn,
  WORKER_ID,
  type ClaimedItem,
  type ItemRow,
  type KeyLookup,
} from '~/services/generation-worker.server';
import { env } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';
import { singleton } from '~/utils/singleton.server';

// The generation worker of a process: a hand-written fetch/complete loop over the `generate-item`
// queue (pg-boss's work() sleeps a polling interval after every fetch; see TOOLING.md).
// - GENERATION_CONCURRENCY items at the provider, and as many more claimed next in line: a slot
//   frees the moment the provider answers and goes to the next item at once, without a database
//   round trip; the claim that tops the line up runs while the providers work (slots freed
//   together are topped up by one claim). The answered item's conversion and booking wait until
//   its slot's next item has gone out, so new requests go out first.
// - GENERATION_CONCURRENCY_PER_USER per user across ALL processes, counting the items workers hold
//   (at the provider or next in line): a claim takes a lease on the result row (lease_until), and
//   claims are serialised by one advisory lock, so the count of live leases is exact
//   (generation_claim, db/functions/generation.sql). Jobs of a user at the cap are not fetched.
// - Cancel: an item next in line has not started (started_at is recorded by the next claim): a
//   cancel ends it and the worker drops it (NOTIFY CANCELED_SIGNAL).
// - Woken by NOTIFY (sent in the enqueuing transaction and when an item ends) and by a 1 s poll.
// - Fair: jobs are fetched by pg-boss priority (minus the item's position in its run), so runs
//   interleave and one user's single item is never behind another's thousand.
// - Crash-safe: a job whose item's lease expired (its worker was killed) is put back in the queue;
//   an item claimed more than MAX_DELIVERIES times ends failed and refunded.

const POLL_MS = 1000;
const REAP_MS = 5000;
/** The longest an answered item waits for its slot's refill (by a claim) before its booking goes ahead. */
const GATE_MAX_MS = 1000;
/** How long a claim for a few free slots waits for more to free. */
const COALESCE_MS = 10;

/**
 * Claims up to n jobs for this process, at most `perUser` items per user leased in total, and
 * renews the claimed items' holds to the lease (ledger extendHolds) in the same transaction.
 */
export async function claimItems(
  n: number,
  perUser: number,
  leaseSeconds: number,
  /** This process's items whose provider already answered (being booked): not counted as busy. */
  answered: string[] = [],
  /** This process's items sent to their provider since its last claim. */
  started: string[] = [],
  db: Db = jobSql,
): Promise<ClaimedItem[]> {
  if (n <= 0 && started.length === 0) return [];
  return transaction(db, async (tx) => {
    // The claim is db/functions/generation.sql's generation_claim (why it is there).
    const rows = await tx<
      {
        jobId: string;
        jobData: { resultId: string; userId: string; attempt: number };
        leased: boolean;
        deliveries: number | null;
        item: ItemRow | null;
      }[]
    >`
      SELECT job_id AS "jobId", job_data AS "jobData", leased, deliveries, item
      FROM generation_claim(${GENERATE_QUEUE}, ${Math.max(0, n)}, ${perUser}, ${leaseSeconds}, ${answered}::uuid[], ${started}::uuid[])`;
    const keys = rows.filter((r) => r.item).map((r) => holdKey(r.jobData.resultId, r.jobData.attempt));
    const held = new Set(await extendHolds(keys, leaseHoldExpiry(leaseSeconds), tx));
    return rows.map((r) => ({
      jobId: r.jobId,
      resultId: r.jobData.resultId,
      userId: r.jobData.userId,
      attempt: r.jobData.attempt,
      leased: r.leased,
      deliveries: r.deliveries ?? 0,
      leaseSeconds,
      row: r.item ? { ...r.item, held: held.has(holdKey(r.jobData.resultId, r.jobData.attempt)) } : undefined,
    }));
  });
}

/** Of items a worker keeps next in line, those no longer processing in their attempt (canceled). */
async function withdrawnItems(items: { resultId: string; attempt: number }[], db: Db = jobSql): Promise<Set<string>> {
  const rows = await db<{ id: string }[]>`
    SELECT w.id FROM unnest(${items.map((i) => i.resultId)}::uuid[], ${items.map((i) => i.attempt)}::int[]) AS w(id, attempt)
    WHERE NOT EXISTS (SELECT 1 FROM generation_results r WHERE r.id = w.id AND r.attempt = w.attempt AND r.status = 'processing')`;
  return new Set(rows.map((r) => r.id));
}

/** Gives back leases of items that never reached their provider: revived elsewhere, not counted as a delivery. */
async function releaseItems(resultIds: string[], db: Db = jobSql): Promise<void> {
  await db`
    UPDATE generation_results SET lease_until = now(), deliveries = greatest(deliveries - 1, 0)
    WHERE id = ANY(${resultIds}::uuid[]) AND status = 'processing' AND started_at IS NULL`;
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
export async function reviveAbandoned(db: Db = jobSql): Promise<number> {
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
function memoKeys(): KeyLookup {
  const memo = new Map<string, Promise<string | null>>();
  return (userId: string, provider: Provider) => {
    const k = `${provider}:${userId}`;
    let key = memo.get(k);
    if (!key) memo.set(k, (key = providerKey(userId, provider, jobSql)));
    return key;
  };
}

export type GenerationLoop = {
  /** Items this process holds now (at the provider, next in line, being booked). */
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
  const listener = await getJobSql().listen(WAKE_CHANNEL, (payload) => {
    if (payload === CANCELED_SIGNAL) checkWithdrawn = true;
    if (payload !== WORKER_ID) wake();
  });
  const pending: string[] = [];
  let flushing: Promise<void> | null = null;
  const flush = async () => {
    while (pending.length) {
      const ids = pending.splice(0, pending.length);
      const failed = await completeJobs(ids).then(
        () => false,
        (err) => (logger.warn({ err: String(err), jobs: ids.length }, 'generation: jobs could not be marked done; trying again'), true),
      );
      if (failed) {
        // Their items are booked; only pg-boss's record is behind. Kept for the next flush.
        pending.unshift(...ids);
        if (stopping) return;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    }
  };

  // A slot is taken while the provider works on an item. Each claim also takes up to
  // `concurrency` items more, kept `waiting` next in line (leased, their keys looked up): a slot
  // that frees when its provider answers goes to the next waiting item at once, and the claim that
  // replaces it runs while the providers work. The answered item moves to `booking` (its result and
  // hold are being written); its CPU work (conversion, booking) waits until its slot's next item
  // has gone out, so new requests leave first when many answers land together.
  type Waiting = { resultId: string; attempt: number; grant: () => void; withdraw: (err: Error) => void; task: Promise<void> };
  const waiting = new Map<string, Waiting>();
  const booking = new Map<string, { resultId: string; task: Promise<void> }>();
  /** Items sent to their provider since the last claim (the claim records it: started_at). */
  let started: string[] = [];
  /** Jobs given back on stop: left active, for their lease to expire and another worker to revive. */
  const released = new Set<string>();
  let checkWithdrawn = false;
  let answeredSeq = 0;
  let refillWaiters: { seq: number; resolve: () => void }[] = [];
  const refilled = (upTo: number) => {
    const ready = refillWaiters.filter((w) => w.seq <= upTo);
    refillWaiters = refillWaiters.filter((w) => w.seq > upTo);
    for (const w of ready) w.resolve();
  };
  // Answered items' CPU work (conversion, booking) takes turns, one per event-loop iteration, so
  // the answers that land meanwhile are read, and their slots' next requests sent, in between.
  const turns: (() => void)[] = [];
  const nextTurn = () => {
    turns.shift()?.();
    if (turns.length > 0) setImmediate(nextTurn);
  };
  const cpuTurn = () =>
    new Promise<void>((resolve) => {
      if (turns.push(resolve) === 1) setImmediate(nextTurn);
    });
  /** Free slots go to waiting items, in claim order. Returns how many went. */
  const grantSlots = () => {
    let granted = 0;
    for (const [jobId, w] of waiting) {
      if (stopping || inFlight.size >= concurrency) break;
      waiting.delete(jobId);
      inFlight.set(jobId, w.task);
      started.push(w.resultId);
      w.grant();
      granted++;
    }
    return granted;
  };
  const run = (item: ClaimedItem, keyOf: KeyLookup) => {
    let answered = false;
    let grant!: () => void;
    let withdraw!: (err: Error) => void;
    const slot = new Promise<void>((resolve, reject) => ((grant = resolve), (withdraw = reject)));
    slot.catch(() => {});
    const onAnswered = () => {
      if (answered) return;
      answered = true;
      booking.set(item.jobId, { resultId: item.resultId, task });
      waiting.delete(item.jobId);
      const hadSlot = inFlight.delete(item.jobId);
      wake();
      if (stopping) return;
      // The slot went to the next item, whose request goes out in this tick; else wait for a claim.
      if (hadSlot && grantSlots() > 0) return cpuTurn();
      const seq = ++answeredSeq;
      const gate = new Promise<void>((resolve) => refillWaiters.push({ seq, resolve }));
      return Promise.race([gate, new Promise<void>((r) => setTimeout(r, GATE_MAX_MS))]).then(cpuTurn);
    };
    const task: Promise<void> = (async () => {
      try {
        await processItem(item, { keyOf, onAnswered, slot: () => slot }, jobSql);
        if (!released.has(item.jobId)) pending.push(item.jobId);
      } catch (err) {
        // The job stays active: the item's lease (ended by a hand-back, or running out) brings it
        // back to a worker. A hand-back is the database's doing and was logged as such.
        if (!(err instanceof HandedBack)) logger.error({ err, resultId: item.resultId }, 'generation: item could not be booked');
      } finally {
        waiting.delete(item.jobId);
        if (inFlight.delete(item.jobId)) grantSlots();
        booking.delete(item.jobId);
        released.delete(item.jobId);
        // Once stopping, stop() flushes what ended in time; an item that ends after it (its answer
        // came late) is left to be revived and found done, rather than restarting pg-boss.
        if (!stopping) flushing ??= flush().finally(() => (flushing = null));
        wake();
      }
    })();
    // Next in line until a slot is granted (processItem waits for it past its first await).
    if (item.leased) waiting.set(item.jobId, { resultId: item.resultId, attempt: item.attempt, grant, withdraw, task });
  };

  /** Waiting items whose run was canceled are dropped (their rows are already canceled and refunded). */
  const dropWithdrawn = async () => {
    checkWithdrawn = false;
    const list = [...waiting.values()];
    if (list.length === 0) return;
    const gone = await withdrawnItems(list);
    for (const [jobId, w] of waiting) {
      if (!gone.has(w.resultId)) continue;
      waiting.delete(jobId);
      w.withdraw(new SlotWithdrawn());
    }
  };

  let lastReap = 0;
  const loop = (async () => {
    while (!stopping) {
      woken = false;
      const target = 2 * concurrency; // at the provider and next in line
      // Answers land together (runs start together): when only a few are missing, give the others
      // a moment to free theirs, so that one claim serves them all.
      if (target - inFlight.size - waiting.size < concurrency / 2) await new Promise((r) => setTimeout(r, COALESCE_MS));
      const seen = answeredSeq;
      try {
        if (Date.now() - lastReap > REAP_MS) {
          lastReap = Date.now();
          const revived = await reviveAbandoned();
          if (revived > 0) logger.warn({ revived }, 'generation: abandoned items put back in the queue');
        }
        if (checkWithdrawn) await dropWithdrawn();
        // Empty slots first (their requests go out sooner), then the line; bookings are quick, but
        // never let them pile up beyond another round of slots.
        const empty = concurrency - inFlight.size - waiting.size;
        const want = Math.min(
          empty > 0 ? empty : target - inFlight.size - waiting.size,
          target + concurrency - inFlight.size - waiting.size - booking.size,
        );
        if (want > 0 || started.length > 0) {
          const answered = [...booking.values()].map((b) => b.resultId);
          const report = started;
          started = [];
          const items = await claimItems(want, perUser, leaseSeconds, answered, report).catch((err) => {
            started.push(...report);
            throw err;
          });
          const keyOf = memoKeys(); // one key lookup per user and provider for the batch
          for (const item of items) run(item, keyOf);
          grantSlots();
          if (want > 0 && items.length === want) continue;
        }
      } catch (err) {
        // While the database is away this fails once a poll: a warning, the outage is no bug.
        if (!stopping) logger[isInfrastructureError(err) ? 'warn' : 'error']({ err: String(err) }, 'generation: claim failed');
      } finally {
        refilled(seen);
      }
      await nap(POLL_MS);
    }
  })();

  const handle: GenerationLoop = {
    inFlight: () => inFlight.size + waiting.size + booking.size,
    wake,
    stop: async () => {
      stopping = true;
      wake();
      await loop;
      refilled(Infinity);
      // Items next in line never reached their provider: given back at once.
      const next = [...waiting.entries()];
      waiting.clear();
      for (const [jobId, w] of next) {
        released.add(jobId);
        w.withdraw(new SlotWithdrawn());
      }
      if (next.length > 0) await releaseItems(next.map(([, w]) => w.resultId)).catch(() => {});
      // Items in flight get a moment to finish; the rest are left to their lease (revived elsewhere).
      await Promise.race([
        Promise.allSettled([...inFlight.values(), ...[...booking.values()].map((b) => b.task)]),
        new Promise((r) => setTimeout(r, 5000)),
      ]);
      if (inFlight.size + booking.size > 0) {
        const ids = [...inFlight.keys(), ...booking.keys()];
        await jobSql`
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
