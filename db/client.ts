import postgres from 'postgres';

// THE TRANSACTION RULE. A service function that reads or writes takes `db: Db = sql` as its LAST
// parameter: the caller's transaction, or the pool when given none. Writes that must be atomic
// together go through `transaction(db, tx => ...)`, which joins the caller's transaction when `db`
// already is one and opens its own otherwise. Jobs are enqueued with the same `db` (jobs/boss.ts
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

// One pool per process: server.ts and the Remix build are two module graphs, so the pool lives on
// globalThis and is created on first use (after server.ts has settled DATABASE_URL).
const holder = globalThis as unknown as { __postforgeSql?: Sql };

export function connect(url = process.env.DATABASE_URL, max = Number(process.env.DATABASE_POOL_MAX ?? 10)): Sql {
  if (!url) throw new Error('DATABASE_URL is not set and no embedded Postgres was started');
  return postgres(url, {
    max,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    transform: { undefined: null },
  }) as unknown as Sql;
}

export function getSql(): Sql {
  holder.__postforgeSql ??= connect();
  return holder.__postforgeSql;
}

/** The process pool; a tagged template like postgres() itself. */
export const sql: Sql = new Proxy(function () {} as unknown as Sql, {
  apply: (_t, _this, args) => (getSql() as unknown as (...a: unknown[]) => unknown)(...args),
  get: (_t, key) => {
    const target = getSql() as unknown as Record<string | symbol, unknown>;
    const value = target[key];
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  },
});

export async function closeSql(): Promise<void> {
  const current = holder.__postforgeSql;
  holder.__postforgeSql = undefined;
  if (current) await current.end({ timeout: 5 });
}
