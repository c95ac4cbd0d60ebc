import postgres from 'postgres';
import { loadEnv } from '../app/runtime/env.server';
import { dropSingleton, singleton } from '../app/runtime/singleton.server';
import { timeDatabaseWork, timeQuery } from '../app/runtime/server-timing.server';

// THE TRANSACTION RULE. A service function that reads or writes takes `db: Db = sql` as its LAST
// parameter: the caller's transaction, or the pool when given none. Writes that must be atomic
// together go through `transaction(db, tx => ...)`, which joins the caller's transaction when `db`
// already is one and opens its own otherwise. Jobs are enqueued with the same `db` (app/queue/boss.ts
// `enqueue`, `enqueueMany`), so they commit or roll back with the rows they act on. No pooled
// connection or row lock is held across network I/O: commit first, then call the provider.

export type Sql = postgres.Sql<Record<string, never>>;
export type TransactionSql = postgres.TransactionSql<Record<string, never>>;
/** The pool or a transaction: what every writing service function takes first. */
export type Db = Sql | TransactionSql;

function isTransaction(db: Db): db is TransactionSql {
  return typeof (db as TransactionSql).savepoint === 'function';
}

/** Runs fn in the caller's transaction when db is one, else in a new transaction on db. */
export async function transaction<T>(db: Db, fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
  if (isTransaction(db)) return fn(db);
  return (await (db as Sql).begin((tx) => fn(tx as unknown as TransactionSql))) as T;
}

// THE POOLS OF A PROCESS, so slow jobs cannot starve HTTP, nor the generation items the claim:
// - `sql` (getSql): the web pool, DATABASE_POOL_MAX connections, application_name postforge-web.
//   Routes, loaders and actions use it (it is every service's default `db`).
// - `jobSql` (getJobSql): the job workers' pool, JOBS_POOL_MAX connections, application_name
//   postforge-jobs. Every job handler (jobs/handlers/) and the generation loop (its items'
//   bookings, its LISTEN) pass it as the `db` of the services they call, e.g.
//   `resetDueUsers({}, jobSql)`, or `transaction(jobSql, tx => ...)`.
// - `claimSql` (getClaimSql): ONE connection, application_name postforge-claim, for the generation
//   loop's claim (which renews its holds in the same statement) and nothing else. postgres.js
//   queues a statement behind the others on a busy connection when every one is busy: on the jobs
//   pool a claim waited behind a wave of bookings, and every item of the worker waited for it.
// pg-boss keeps a small pool of its own (app/queue/boss.ts, BOSS_POOL_MAX). A ROLE=web process
// never opens the jobs and claim pools. All are created on first use, after server.ts has settled
// DATABASE_URL (an embedded Postgres sets it at start), and live in singleton() because server.ts
// and the Remix build are two module graphs.

type PoolName = 'web' | 'jobs' | 'claim';

/** A postgres.js pool; `name` becomes its application_name (pg_stat_activity tells them apart). */
export function connect(url = process.env.DATABASE_URL, max = 10, name = 'postforge'): Sql {
  if (!url) throw new Error('DATABASE_URL is not set and no embedded Postgres was started');
  return postgres(url, {
    max,
    idle_timeout: 30,
    // Short: while the database is down, pages answer 503 at once rather than hang (see db-unavailable).
    connect_timeout: 5,
    // After the database returns, a connection that failed meanwhile reconnects within 2 s: the
    // driver's own backoff grows to 20 s after a few failed attempts, which an outage of seconds
    // reaches, and that long every pool would keep answering 503 after the database was back.
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    transform: { undefined: null },
    connection: { application_name: name },
  }) as unknown as Sql;
}

/** The wait before a connection's next attempt after `failures` in a row: 0.1 s doubling up to 2 s, jittered. */
export function reconnectDelaySeconds(failures: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.1 * 2 ** failures, 2);
}

const POOL_KEY = { web: 'db.pool.web', jobs: 'db.pool.jobs', claim: 'db.pool.claim' } as const;

function pool(which: PoolName): Sql {
  return singleton(POOL_KEY[which], () => {
    const env = loadEnv();
    if (which === 'claim') return connect(process.env.DATABASE_URL, 1, 'postforge-claim');
    return which === 'web'
      ? connect(process.env.DATABASE_URL, env.DATABASE_POOL_MAX, 'postforge-web')
      : connect(process.env.DATABASE_URL, env.JOBS_POOL_MAX, 'postforge-jobs');
  });
}

/** The web pool itself (not the lazy proxy). */
export function getSql(): Sql {
  return pool('web');
}

/** The job workers' pool itself. */
export function getJobSql(): Sql {
  return pool('jobs');
}

/** The generation loop's claim connection itself. */
export function getClaimSql(): Sql {
  return pool('claim');
}

/** A tagged template like postgres() itself that opens its pool on first use. */
// Inside a page request, each awaited query and transaction adds its time to the request's
// Server-Timing (app/runtime/server-timing.server.ts); elsewhere they pass through untouched.
function lazy(get: () => Sql): Sql {
  return new Proxy(function () {} as unknown as Sql, {
    apply: (_t, _this, args) => timeQuery((get() as unknown as (...a: unknown[]) => PromiseLike<unknown>)(...args)),
    get: (_t, key) => {
      const target = get() as unknown as Record<string | symbol, unknown>;
      const value = target[key];
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => unknown).bind(target);
      if (key === 'begin') return (...a: unknown[]) => timeDatabaseWork(bound(...a) as Promise<unknown>);
      if (key === 'unsafe') return (...a: unknown[]) => timeQuery(bound(...a) as PromiseLike<unknown>);
      return bound;
    },
  });
}

/** The web pool: what routes use and every service's default `db`. */
export const sql: Sql = lazy(getSql);
/** The job workers' pool: job handlers pass it as `db`. */
export const jobSql: Sql = lazy(getJobSql);
/** The generation loop's claim connection: its claims only. */
export const claimSql: Sql = lazy(getClaimSql);

/** Ends the pools (shutdown, end of a test file). */
export async function closeSql(): Promise<void> {
  const pools = [dropSingleton<Sql>(POOL_KEY.web), dropSingleton<Sql>(POOL_KEY.jobs), dropSingleton<Sql>(POOL_KEY.claim)];
  await Promise.all(pools.map((p) => p?.end({ timeout: 5 })));
}
