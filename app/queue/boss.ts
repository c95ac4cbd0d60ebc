import PgBoss from 'pg-boss';
import { getLogger } from '~/runtime/logger.server';
import { dropSingleton, singleton } from '~/runtime/singleton.server';
import { getSql, sql, type Db } from '../../db/client';
import { withSchemaLock } from '../../db/schema-lock';
import { queues, type QueueName, type QueuePayload } from './queues';

// One pg-boss per process, shared by server.ts and the Remix build (singleton()).
const BOSS = 'pg-boss';

// PG-BOSS INTERNALS WE TOUCH. Everything else goes through pg-boss's API; only the generation
// queue's own loop (jobs/generation-loop.ts, not work()) reads and writes pgboss.job itself, through
// app/services/generation/claim.server.ts:
// - db/functions/generation.sql generation_claim: fetches `generate-item` jobs and marks them
//   active like pg-boss's fetchNextJob does (state < 'active', start_after, priority, SKIP LOCKED,
//   retry_count), but in the same statement as our per-user cap across processes and the item's
//   lease, which pg-boss's fetch cannot express (it knows nothing of users or result rows).
// - reviveAbandoned: puts an active job back to `retry` as soon as its
//   item's lease expired (its worker died), instead of waiting for pg-boss's job expiry, which is
//   per queue and sized for the slowest provider call; and endLeases reads pgboss.job to find the
//   result rows of the jobs a stopping loop leaves behind.
// - enqueueMany below hands insert() the parsed batch (postgres.js would send its JSON text as a
//   JSON string scalar).
// pg-boss is therefore pinned to an exact version in package.json, and
// tests/integration/pgboss-schema.test.ts fails when the installed version, its schema version,
// the columns of pgboss.job or the order of its states change: read the new pg-boss's plans.js
// before moving the pin.

/**
 * pg-boss's own pool: it fetches, completes and schedules jobs through it (enqueueing inside a
 * transaction goes through the caller's db instead). Handlers do their own work on `jobSql`
 * (JOBS_POOL_MAX); a process holds at most DATABASE_POOL_MAX + JOBS_POOL_MAX + BOSS_POOL_MAX
 * connections, and on workers the generation loop's claim connection and its LISTEN.
 */
export const BOSS_POOL_MAX = 4;

export type BossMode = 'web' | 'worker';

/** Starts pg-boss: web processes only enqueue; workers also supervise and run schedules. */
export function startBoss(mode: BossMode = 'web'): Promise<PgBoss> {
  return singleton(BOSS, async () => {
    const boss = new PgBoss({
      connectionString: process.env.DATABASE_URL,
      schema: 'pgboss',
      max: BOSS_POOL_MAX,
      supervise: mode === 'worker',
      schedule: mode === 'worker',
      migrate: true,
    });
    // pg's pool.end() resolves as soon as its idle clients are told to close, not when they have:
    // when the embedded Postgres stops right after (shutdown), such a client can still receive the
    // server's "terminating connection" and its pool reports it. Once stopped, that is expected.
    let stopped = false;
    boss.on('stopped', () => (stopped = true));
    boss.on('error', (err) => {
      if (stopped) getLogger().debug({ err: err.message }, 'pg-boss error after it stopped');
      else getLogger().error({ err: err.message }, 'pg-boss error');
    });
    // pg-boss's install and queue creation are schema work: under the same lock as our
    // migrations, one process at a time (two processes creating queues at once deadlock).
    await withSchemaLock(getSql(), async () => {
      await boss.start();
      for (const [name, q] of Object.entries(queues)) {
        await boss.createQueue(name, { name, ...q.options });
      }
      await ensureJobOrderIndex(getSql());
    });
    return boss;
  });
}

/**
 * The queued jobs in the order workers take them (pg-boss's fetch and generation_claim: by
 * priority, then age). pg-boss indexes them by start time only, so every claim read and sorted the
 * whole queue (~75 ms at 20,000 queued items, growing with the queue); with this index it reads
 * just the jobs it takes. Made once pg-boss has made its schema (after our migrations), on the
 * parent table, so every queue's partition, and one created later, has it.
 */
export async function ensureJobOrderIndex(db: Db): Promise<void> {
  await db.unsafe(
    `CREATE INDEX IF NOT EXISTS job_fetch_order_idx ON pgboss.job (name, priority DESC, created_on, id) WHERE state < 'active'`,
  );
}

export function getBoss(): Promise<PgBoss> {
  return startBoss('web');
}

/** Stops pg-boss, giving its running jobs `timeoutMs` to finish. */
export async function stopBoss(timeoutMs = 10_000): Promise<void> {
  const pending = dropSingleton<Promise<PgBoss>>(BOSS);
  if (pending) await (await pending).stop({ graceful: true, wait: true, timeout: timeoutMs });
}

/** pg-boss's Db adapter over the caller's Db: a transaction makes the job commit or roll back with it. */
function bossDb(db: Db): PgBoss.Db {
  return {
    executeSql: async (text, values) => ({ rows: await db.unsafe(text, values as never[]) }),
  };
}

export type EnqueueOptions = { singletonKey?: string; startAfter?: Date | number; priority?: number };

/** Validates the payload against its queue and sends it through db (see the rule in db/client.ts). */
export async function enqueue<Q extends QueueName>(
  name: Q,
  payload: QueuePayload<Q>,
  opts: EnqueueOptions = {},
  db: Db = sql,
): Promise<string | null> {
  const data = queues[name].payload.parse(payload);
  const boss = await getBoss();
  return boss.send(name, data, {
    ...queues[name].options,
    ...definedOnly(opts),
    db: bossDb(db),
  });
}

function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export type EnqueueItem<Q extends QueueName> = {
  payload: QueuePayload<Q>;
  id?: string;
  singletonKey?: string;
  startAfter?: Date;
  priority?: number;
};

/** Puts a whole batch of jobs into one queue with one INSERT, through db (inside the caller's transaction). */
export async function enqueueMany<Q extends QueueName>(name: Q, items: EnqueueItem<Q>[], db: Db = sql): Promise<void> {
  if (items.length === 0) return;
  const { retryLimit, retryDelay, retryBackoff, expireInSeconds } = queues[name].options as PgBoss.Queue;
  const jobs: PgBoss.JobInsert[] = items.map((item) =>
    definedOnly({
      id: item.id,
      name,
      data: queues[name].payload.parse(item.payload) as object,
      priority: item.priority,
      singletonKey: item.singletonKey,
      startAfter: item.startAfter?.toISOString(),
      retryLimit,
      retryDelay,
      retryBackoff,
      expireInSeconds,
    }),
  );
  const boss = await getBoss();
  // insert() passes the batch as one JSON text parameter; postgres.js would encode that string as a
  // JSON string scalar for the json-typed parameter, so hand it the parsed array instead.
  await boss.insert(jobs, {
    db: {
      executeSql: async (text, values) => ({
        rows: await db.unsafe(text, [JSON.parse(String(values![0])), ...values!.slice(1)] as never[]),
      }),
    },
  });
}
