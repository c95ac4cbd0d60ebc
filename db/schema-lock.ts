import type { Sql } from './client';

// Any constant works; it only has to be the same for every instance of the app.
const SCHEMA_LOCK = 727_001;

export type Conn = Awaited<ReturnType<Sql['reserve']>>;

/**
 * Runs fn on one reserved connection while it holds the schema lock: a session advisory lock that
 * every instance of the app takes around schema work (our migrations and database code in
 * db/migrate.ts, pg-boss's install and queue creation in app/queue/boss.ts), so processes starting
 * together do it one at a time and the ones that waited find nothing left to do. Without it, two
 * processes creating pg-boss's queues at once deadlock.
 */
export async function withSchemaLock<T>(sql: Sql, fn: (conn: Conn) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    await conn`SELECT pg_advisory_lock(${SCHEMA_LOCK})`;
    return await fn(conn);
  } finally {
    await conn`SELECT pg_advisory_unlock(${SCHEMA_LOCK})`.catch(() => {});
    conn.release();
  }
}
