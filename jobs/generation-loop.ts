import { getSql, sql, type Db } from '../db/client';
import { getBoss } from './boss';
import { GENERATE_QUEUE, WAKE_CHANNEL } from '~/services/generation.server';
import { processItem, WORKER_ID, type ClaimedItem } from '~/services/generation-worker.server';
import { env } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';
import { singleton } from '~/utils/singleton.server';

// The generation worker of a process: a hand-written fetch/complete loop over the `generate-item`
// queue (pg-boss's work() sleeps a polling interval after every fetch; see TOOLING.md).
// - GENERATION_CONCURRENCY items in flight; a slot is refilled the moment it frees.
// - GENERATION_CONCURRENCY_PER_USER per user across ALL processes: a claim takes a lease on the
//   result row (lease_until), and claims are serialised by one advisory lock, so the count of live
//   leases is exact. Jobs of a user at the cap are simply not fetched.
// - Woken by NOTIFY (sent in the enqueuing transaction and when an item ends) and by a 1 s poll.
// - Fair: jobs are fetched by pg-boss priority (minus the item's position in its run), so runs
//   interleave and one user's single item is never behind another's thousand.
// - Crash-safe: a job whose item's lease expired (its worker was killed) is put back in the queue;
//   an item claimed more than MAX_DELIVERIES times ends failed and refunded.

const CLAIM_LOCK = 7_226_001;
const POLL_MS = 1000;
const REAP_MS = 5000;

/** Claims up to n jobs for this process, at most `perUser` items per user in flight in total. */
export async function claimItems(n: number, perUser: number, leaseSeconds: number, db = getSql()): Promise<ClaimedItem[]> {
  if (n <= 0) return [];
  return db.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`;
    const rows = await tx<
      { id: string; data: { resultId: string; userId: string; attempt: number }; leased: boolean; deliveries: number | null }[]
    >`
      WITH busy AS (
        SELECT user_id, count(*)::int AS n FROM generation_results
        WHERE lease_until IS NOT NULL AND lease_until > now() GROUP BY user_id
      ), cand AS (
        SELECT j.id, j.data, j.priority, j.created_on
        FROM pgboss.job j
        WHERE j.name = ${GENERATE_QUEUE} AND j.state < 'active' AND j.start_after < now()
          AND NOT EXISTS (SELECT 1 FROM busy b WHERE b.user_id::text = j.data->>'userId' AND b.n >= ${perUser})
        ORDER BY j.priority DESC, j.created_on, j.id
        LIMIT ${n * 4}
        FOR UPDATE OF j SKIP LOCKED
      ), ranked AS (
        SELECT c.id, c.data, c.priority, c.created_on, coalesce(b.n, 0) AS busy,
          row_number() OVER (PARTITION BY c.data->>'userId' ORDER BY c.priority DESC, c.created_on, c.id) AS rn
        FROM cand c LEFT JOIN busy b ON b.user_id::text = c.data->>'userId'
      ), picked AS (
        SELECT id, data FROM ranked WHERE rn <= ${perUser} - busy
        ORDER BY priority DESC, created_on, id LIMIT ${n}
      ), act AS (
        UPDATE pgboss.job j SET state = 'active', started_on = clock_timestamp(), -- after the lock: claims are ordered
          retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
        FROM picked p WHERE j.name = ${GENERATE_QUEUE} AND j.id = p.id
        RETURNING j.id, j.data
      ), lease AS (
        UPDATE generation_results r SET lease_until = now() + make_interval(secs => ${leaseSeconds}), deliveries = r.deliveries + 1
        FROM act a
        WHERE r.id::text = a.data->>'resultId' AND r.user_id::text = a.data->>'userId'
          AND r.attempt = (a.data->>'attempt')::int AND r.status = 'processing'
          AND (r.lease_until IS NULL OR r.lease_until <= now())
        RETURNING r.id, r.deliveries
      )
      -- Two jobs of the same item in one batch: only the first one gets the lease.
      SELECT a.id, a.data, l.id IS NOT NULL AND row_number() OVER (PARTITION BY a.data->>'resultId' ORDER BY a.id) = 1 AS leased, l.deliveries
      FROM act a LEFT JOIN lease l ON l.id::text = a.data->>'resultId'`;
    return rows.map((r) => ({
      jobId: r.id,
      resultId: r.data.resultId,
      userId: r.data.userId,
      attempt: r.data.attempt,
      leased: r.leased,
      deliveries: r.deliveries ?? 0,
      leaseSeconds,
    }));
  });
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
      AND r.id::text = j.data->>'resultId' AND r.attempt = (j.data->>'attempt')::int
      AND r.status = 'processing' AND r.lease_until IS NOT NULL AND r.lease_until < now()
    RETURNING j.id`;
  return rows.count;
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

  const run = (item: ClaimedItem) => {
    const task = (async () => {
      try {
        await processItem(item);
        pending.push(item.jobId);
      } catch (err) {
        // A database failure while booking: the lease expires and the job is revived.
        logger.error({ err: String(err), resultId: item.resultId }, 'generation: item could not be booked');
      } finally {
        inFlight.delete(item.jobId);
        flushing ??= flush().finally(() => (flushing = null));
        wake();
      }
    })();
    inFlight.set(item.jobId, task);
  };

  let lastReap = 0;
  const loop = (async () => {
    while (!stopping) {
      woken = false;
      try {
        if (Date.now() - lastReap > REAP_MS) {
          lastReap = Date.now();
          const revived = await reviveAbandoned();
          if (revived > 0) logger.warn({ revived }, 'generation: abandoned items put back in the queue');
        }
        const free = concurrency - inFlight.size;
        if (free > 0) {
          const items = await claimItems(free, perUser, leaseSeconds);
          for (const item of items) run(item);
          if (items.length > 0 && items.length === free) continue;
        }
      } catch (err) {
        if (!stopping) logger.error({ err: String(err) }, 'generation: claim failed');
      }
      await nap(POLL_MS);
    }
  })();

  const handle: GenerationLoop = {
    inFlight: () => inFlight.size,
    wake,
    stop: async () => {
      stopping = true;
      wake();
      await loop;
      // Items in flight get a moment to finish; the rest are left to their lease (revived elsewhere).
      await Promise.race([Promise.allSettled([...inFlight.values()]), new Promise((r) => setTimeout(r, 5000))]);
      if (inFlight.size > 0) {
        const ids = [...inFlight.keys()];
        await sql`
          UPDATE generation_results r SET lease_until = now()
          FROM pgboss.job j WHERE j.id = ANY(${ids}::uuid[]) AND r.id::text = j.data->>'resultId' AND r.status = 'processing'`.catch(
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
