import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { plans } from '../app/catalogue';
import type { Sql } from './client';
import { withSchemaLock, type Conn } from './schema-lock';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const FUNCTIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'functions');

export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    .sort();
}

export function functionFiles(dir = FUNCTIONS_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^[\w-]+\.sql$/.test(f))
    .sort();
}

/**
 * The code that lives in the database, applied after the migrations on every migrate: the
 * functions of db/functions/*.sql (CREATE OR REPLACE, in name order) and the catalogue's plan
 * amounts (ledger_plans), in one transaction.
 */
async function applyCode(conn: Conn, dir: string): Promise<void> {
  await conn.unsafe('BEGIN');
  try {
    for (const file of functionFiles(dir)) {
      try {
        await conn.unsafe(fs.readFileSync(path.join(dir, file), 'utf8'));
      } catch (err) {
        throw new Error(`Functions file ${file} failed: ${(err as Error).message}`);
      }
    }
    for (const plan of Object.values(plans)) {
      await conn`INSERT INTO ledger_plans (plan, monthly_credits) VALUES (${plan.id}, ${plan.monthlyCredits})
        ON CONFLICT (plan) DO UPDATE SET monthly_credits = excluded.monthly_credits
        WHERE ledger_plans.monthly_credits IS DISTINCT FROM excluded.monthly_credits`;
    }
    await conn.unsafe('COMMIT');
  } catch (err) {
    await conn.unsafe('ROLLBACK');
    throw err;
  }
}

/**
 * Applies pending migrations, each in its own transaction, under the schema lock so that
 * instances starting together apply each file exactly once; then, under the same lock, the
 * database code (applyCode). Returns the migration names applied now. A custom migrations folder
 * (tests) skips the app's database code unless functionsDir is given.
 */
export async function migrate(
  sql: Sql,
  dir = MIGRATIONS_DIR,
  functionsDir: string | null = dir === MIGRATIONS_DIR ? FUNCTIONS_DIR : null,
): Promise<string[]> {
  return withSchemaLock(sql, async (conn) => {
    const applied: string[] = [];
    await conn`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
    const done = new Set((await conn<{ name: string }[]>`SELECT name FROM schema_migrations`).map((r) => r.name));
    for (const file of migrationFiles(dir)) {
      if (done.has(file)) continue;
      const body = fs.readFileSync(path.join(dir, file), 'utf8');
      await conn.unsafe('BEGIN');
      try {
        await conn.unsafe(body);
        await conn`INSERT INTO schema_migrations (name) VALUES (${file})`;
        await conn.unsafe('COMMIT');
      } catch (err) {
        await conn.unsafe('ROLLBACK');
        throw new Error(`Migration ${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
    }
    if (functionsDir) await applyCode(conn, functionsDir);
    return applied;
  });
}

/** True when every migration file on disk is recorded as applied. */
export async function migrationsApplied(sql: Sql, dir = MIGRATIONS_DIR): Promise<boolean> {
  const rows = await sql<{ name: string }[]>`SELECT name FROM schema_migrations`.catch(() => []);
  const done = new Set(rows.map((r) => r.name));
  return migrationFiles(dir).every((f) => done.has(f));
}

/** `npm run db:migrate`: applies pending migrations to DATABASE_URL or the embedded database. */
export async function migrateCli(): Promise<void> {
  const { openDatabase } = await import('./open');
  const { ConfigError } = await import('../app/runtime/env.server');
  const { EmbeddedStartError } = await import('./embedded');
  const db = await openDatabase({ shareRunning: true }).catch((err: unknown) => {
    if (!(err instanceof ConfigError) && !(err instanceof EmbeddedStartError)) throw err;
    console.error(err.message);
    process.exit(1);
  });
  try {
    const names = await migrate(db.sql);
    console.log(names.length ? `Applied ${names.join(', ')}` : 'Database is up to date');
  } finally {
    await db.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await migrateCli();
}
