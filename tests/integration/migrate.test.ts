import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { createDatabase } from '../../db/embedded';
import { functionFiles, migrate, migrationFiles, migrationsApplied } from '../../db/migrate';

const pools: Sql[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function emptyDatabase(): Promise<string> {
  return createDatabase(inject('clusterUrl'), `pf_migrate_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`);
}

function pool(url: string): Sql {
  const p = connect(url, 2);
  pools.push(p);
  return p;
}

describe('migrations', () => {
  it('two instances migrating an empty database at once apply each file exactly once', async () => {
    const url = await emptyDatabase();
    const a = pool(url);
    const b = pool(url);
    expect(await migrationsApplied(a)).toBe(false);
    const [fromA, fromB] = await Promise.all([migrate(a), migrate(b)]);
    const files = migrationFiles();
    expect(files.length).toBeGreaterThan(0);
    // One instance applied everything, the other found nothing left to do.
    expect([...fromA, ...fromB].sort()).toEqual(files);
    expect(fromA.length === 0 || fromB.length === 0).toBe(true);
    const rows = await a<{ name: string; n: number }[]>`SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name`;
    expect(rows.map((r) => r.name)).toEqual(files);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(await migrationsApplied(a)).toBe(true);
    expect(await migrate(b)).toEqual([]);
  });

  it('applies only new files, and rolls back a failing one entirely', async () => {
    const url = await emptyDatabase();
    const sql = pool(url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-migrations-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, '001_one.sql'), 'CREATE TABLE one (id int);');
    expect(await migrate(sql, dir)).toEqual(['001_one.sql']);
    fs.writeFileSync(path.join(dir, '002_two.sql'), 'CREATE TABLE two (id int);');
    fs.writeFileSync(path.join(dir, '003_bad.sql'), 'CREATE TABLE three (id int); SELECT * FROM no_such_table;');
    expect(await migrationsApplied(sql, dir)).toBe(false);
    await expect(migrate(sql, dir)).rejects.toThrow(/003_bad\.sql/);
    const tables = (
      await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`
    ).map((r) => r.name);
    expect(tables).toContain('two');
    expect(tables).not.toContain('three');
    const names = (await sql<{ name: string }[]>`SELECT name FROM schema_migrations ORDER BY name`).map((r) => r.name);
    expect(names).toEqual(['001_one.sql', '002_two.sql']);
    // The lock was released despite the failure: a fixed file applies.
    fs.writeFileSync(path.join(dir, '003_bad.sql'), 'CREATE TABLE three (id int);');
    expect(await migrate(sql, dir)).toEqual(['003_bad.sql']);
    expect(await migrationsApplied(sql, dir)).toBe(true);
  });

  it('applies db/functions after the migrations on every migrate, so the files are what runs', async () => {
    const url = await emptyDatabase();
    const sql = pool(url);
    expect(functionFiles()).toContain('ledger.sql');
    await migrate(sql);
    // The functions file replaced migration 002's versions (ledger_reserve takes expiries now).
    const [reserveArgs] = await sql<{ args: string }[]>`
      SELECT pg_get_function_identity_arguments(oid) AS args FROM pg_proc WHERE proname = 'ledger_reserve'`;
    expect(reserveArgs!.args).toContain('p_expires timestamp with time zone[]');
    expect(await sql`SELECT 1 FROM pg_proc WHERE proname = 'ledger_reserve'`).toHaveLength(1);
    // A hand-edited function (or a rule changed in an older release) is put back by the next migrate,
    // even with no migration pending.
    await sql.unsafe(`CREATE OR REPLACE FUNCTION ledger_available(p_account bigint) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
      BEGIN RETURN 999; END $$`);
    expect((await sql<{ v: string }[]>`SELECT ledger_available(1) AS v`)[0]!.v).toBe('999');
    expect(await migrate(sql)).toEqual([]);
    expect((await sql<{ v: string }[]>`SELECT ledger_available(1) AS v`)[0]!.v).not.toBe('999');
    // No plan amount is written in SQL: they come from the catalogue through ledger_plans.
    const body = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '../../db/functions/ledger.sql'), 'utf8');
    expect(body).not.toMatch(/\b45\b/);
    expect(body).not.toMatch(/THEN 5\b|ELSE 5\b/);
  });
});
