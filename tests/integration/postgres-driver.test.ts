/**
 * The patch of postgres.js (patches/postgres+3.4.9.patch): a backend that dies no longer crashes
 * the process, and the next queries on its connection get their own answers:
 * - under a transaction: the transaction's ROLLBACK was written to the closed socket, a TypeError
 *   thrown from a timer; and a stale error from the dead backend rejected the next queries;
 * - while a new connection asked for the array types: that query's rejection was never handled;
 * - a dead connection's row count carried over, placing the next query's row after empty ones.
 *
 * The same child runs against the installed driver and against a copy with the patch taken back
 * out (`git apply -R`), so this test shows the patch is what makes the difference.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PATCH = path.join(ROOT, 'patches/postgres+3.4.9.patch');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'postgres-patch-'));
  fs.cpSync(path.join(ROOT, 'node_modules/postgres'), path.join(tmp, 'node_modules/postgres'), { recursive: true });
  execFileSync('git', ['apply', '-R', PATCH], { cwd: tmp });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Outcome = { ok: boolean; code?: string; value?: number };
type Run<T> = { code: number | null; output: string; report?: { seen: T[] } };
type TransactionRound = { transaction: Outcome; waiting: Outcome; next: Outcome };

function runChild<T>(scenario: 'transaction' | 'types' | 'storm', driver?: string): Promise<Run<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/driver-fault-child.ts'], {
    cwd: ROOT,
    env: {
      NODE_ENV: 'test',
      PATH: process.env.PATH,
      // The file's own database: no other test file's sessions meet the child's lock on pg_type.
      DATABASE_URL: process.env.DATABASE_URL,
      ROUNDS: '4',
      SCENARIO: scenario,
      ...(driver ? { POSTGRES_MODULE: pathToFileURL(driver).href } : {}),
    },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      const line = output.split('\n').find((l) => l.startsWith('{"survived"'));
      resolve({ code, output, report: line ? JSON.parse(line) : undefined });
    }),
  );
}

const unpatched = () => path.join(tmp, 'node_modules/postgres/src/index.js');

describe('postgres.js when a backend dies under a transaction', () => {
  it('the installed (patched) driver: the transaction fails with a connection error, the process and its pool live on', async () => {
    const run = await runChild<TransactionRound>('transaction');
    expect(run.code, run.output).toBe(0);
    expect(run.report!.seen).toHaveLength(4);
    run.report!.seen.forEach((round, i) => {
      expect(round.transaction).toEqual({ ok: false, code: 'CONNECTION_CLOSED' });
      expect(round.waiting).toEqual({ ok: true, value: i });
      expect(round.next).toEqual({ ok: true, value: i + 100 });
    });
  }, 60_000);

  it('the driver without the patch dies of the TypeError (what the patch fixes)', async () => {
    const run = await runChild('transaction', unpatched());
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("Cannot read properties of null (reading 'write')");
    expect(run.report).toBeUndefined();
  }, 60_000);
});

describe('postgres.js when a backend dies while a new connection reads the array types', () => {
  it('the installed (patched) driver: the query that opened the connection gets its answer, the process lives on', async () => {
    const run = await runChild<Outcome>('types');
    expect(run.code, run.output).toBe(0);
    expect(run.report!.seen).toEqual([0, 1, 2, 3].map((value) => ({ ok: true, value })));
  }, 60_000);

  it('the driver without the patch dies of the unhandled rejection (what the patch fixes)', async () => {
    const run = await runChild('types', unpatched());
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('terminating connection due to administrator command');
    expect(run.report).toBeUndefined();
  }, 60_000);
});

describe('postgres.js under a storm of terminated backends', () => {
  it("every answer is the query's own row or a connection error, and the process lives on", async () => {
    const run = await runChild<{ right: number; wrong: number; failed: number; kills: number }>('storm');
    expect(run.code, run.output).toBe(0);
    const [tally] = run.report!.seen;
    expect(tally!.wrong).toBe(0);
    expect(tally!.right).toBeGreaterThan(0);
    expect(tally!.kills).toBeGreaterThan(0);
  }, 60_000);
});
