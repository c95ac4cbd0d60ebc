import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { getBoss, stopBoss } from '../../app/queue/boss';
import { getLogger } from '../../app/runtime/logger.server';

// Our SQL reads and writes pg-boss's tables directly in a few places (app/queue/boss.ts, "pg-boss
// internals we touch", lists them and says why). pg-boss does not promise that schema: this test is
// the tripwire. It fails when an upgrade changes what those statements rely on: the package's
// version (pinned exactly in package.json), pg-boss's schema version, the columns of pgboss.job and
// the order of its job states (`state < 'active'` means created or retry). After an upgrade, read the
// new pg-boss's plans.js (fetchNextJob, the supervisor's expiry), adjust our statements, then this list.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

const PG_BOSS_VERSION = '10.4.2';
const SCHEMA_VERSION = 24;
const JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'];
/** pgboss.job as pg-boss 10.4.2 creates it: column, type, nullable. */
const JOB_COLUMNS = [
  'id uuid not null',
  'name text not null',
  'priority int4 not null',
  'data jsonb null',
  'state job_state not null',
  'retry_limit int4 not null',
  'retry_count int4 not null',
  'retry_delay int4 not null',
  'retry_backoff bool not null',
  'start_after timestamptz not null',
  'started_on timestamptz null',
  'singleton_key text null',
  'singleton_on timestamp null',
  'expire_in interval not null',
  'created_on timestamptz not null',
  'completed_on timestamptz null',
  'keep_until timestamptz not null',
  'output jsonb null',
  'dead_letter text null',
  'policy text null',
];

beforeAll(async () => {
  await getBoss(); // installs (or checks) pg-boss's schema on the test database
});

describe("pg-boss's schema under our SQL", () => {
  it('the installed pg-boss is the exact version package.json pins', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['pg-boss']).toBe(PG_BOSS_VERSION);
    expect((require('pg-boss/package.json') as { version: string }).version).toBe(PG_BOSS_VERSION);
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
    };
    expect(lock.packages['']!.dependencies!['pg-boss']).toBe(PG_BOSS_VERSION);
    expect(lock.packages['node_modules/pg-boss']!.version).toBe(PG_BOSS_VERSION);
  });

  it('its schema version is the one our statements were written against', async () => {
    const [row] = await sql<{ version: number }[]>`SELECT version FROM pgboss.version`;
    expect(row!.version).toBe(SCHEMA_VERSION);
  });

  it('pgboss.job has the columns and types our statements use, and no others', async () => {
    const columns = await sql<{ name: string; type: string; nullable: string }[]>`
      SELECT column_name AS name, udt_name AS type, is_nullable AS nullable FROM information_schema.columns
      WHERE table_schema = 'pgboss' AND table_name = 'job' ORDER BY ordinal_position`;
    expect(columns.map((c) => `${c.name} ${c.type} ${c.nullable === 'YES' ? 'null' : 'not null'}`)).toEqual(JOB_COLUMNS);
  });

  it('job states keep their order (created and retry sort before active)', async () => {
    const labels = await sql<{ label: string }[]>`
      SELECT e.enumlabel AS label FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'pgboss' AND t.typname = 'job_state' ORDER BY e.enumsortorder`;
    expect(labels.map((l) => l.label)).toEqual(JOB_STATES);
  });
});

describe('pg-boss errors after it stopped', () => {
  // pg's pool.end() resolves before its idle clients have closed, so a Postgres stopped right after
  // (the embedded one, on Ctrl-C) can still make the stopped pool report "terminating connection".
  // That is expected once stopped: not an error line in the log. Before, it is.
  it('are logged below error level once pg-boss has stopped, and as errors before', async () => {
    const logger = getLogger();
    const errors = vi.spyOn(logger, 'error');
    const debug = vi.spyOn(logger, 'debug');
    try {
      const boss = await getBoss();
      boss.emit('error', new Error('before the stop'));
      expect(errors).toHaveBeenCalledWith({ err: 'before the stop' }, 'pg-boss error');
      await stopBoss();
      errors.mockClear();
      boss.emit('error', new Error('terminating connection due to administrator command'));
      expect(errors).not.toHaveBeenCalled();
      expect(debug).toHaveBeenCalledWith({ err: 'terminating connection due to administrator command' }, 'pg-boss error after it stopped');
    } finally {
      errors.mockRestore();
      debug.mockRestore();
    }
  });
});
