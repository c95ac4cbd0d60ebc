/**
 * The patch of postgres.js (patches/postgres+3.4.9.patch): a connection whose backend dies while
 * a transaction runs on it no longer crashes the process (a TypeError thrown from a timer when the
 * transaction's ROLLBACK was written to the closed socket), and the next queries on that
 * connection get their own answers (a stale error from the dead backend rejected them).
 *
 * The same child runs against the installed driver and against a copy with the patch taken back
 * out (`git apply -R`), so this test shows the patch is what makes the difference.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

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
type Run = { code: number | null; output: string; report?: { seen: { transaction: Outcome; waiting: Outcome; next: Outcome }[] } };

function runChild(driver?: string): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/driver-fault-child.ts'], {
    cwd: ROOT,
    env: {
      NODE_ENV: 'test',
      PATH: process.env.PATH,
      DATABASE_URL: inject('clusterUrl'),
      ROUNDS: '4',
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

describe('postgres.js when a backend dies under a transaction', () => {
  it('the installed (patched) driver: the transaction fails with a connection error, the process and its pool live on', async () => {
    const run = await runChild();
    expect(run.code, run.output).toBe(0);
    expect(run.report!.seen).toHaveLength(4);
    run.report!.seen.forEach((round, i) => {
      expect(round.transaction).toEqual({ ok: false, code: 'CONNECTION_CLOSED' });
      expect(round.waiting).toEqual({ ok: true, value: i });
      expect(round.next).toEqual({ ok: true, value: i + 100 });
    });
  }, 60_000);

  it('the driver without the patch dies of the TypeError (what the patch fixes)', async () => {
    const run = await runChild(path.join(tmp, 'node_modules/postgres/src/index.js'));
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("Cannot read properties of null (reading 'write')");
    expect(run.report).toBeUndefined();
  }, 60_000);
});
