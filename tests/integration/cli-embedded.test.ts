import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';

// The operator's situation: the app runs on its embedded Postgres in DATA_DIR, and a command-line
// tool is started next to it with the same (empty) configuration. Fails without the CLI joining
// the running cluster: it tried to start a second one on the same data folder, printed a stack
// trace and told the operator to kill the live database.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-cli-'));
fs.chmodSync(dataDir, 0o755);
let cluster: EmbeddedDatabase;

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: await freePort(), persistent: false, fast: true });
});
afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function run(script: string, ...args: string[]) {
  // Only what an operator's shell has: no DATABASE_URL, the app's DATA_DIR, the default port.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, [script, ...args], { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('command-line tools while the app runs on its embedded Postgres', () => {
  it('npm run db:migrate applies the migrations on the running cluster', async () => {
    const res = await run('db/migrate.ts');
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Applied|up to date/);
  });

  it('npm run ledger -- verify checks the running cluster and exits 0', async () => {
    const res = await run('app/cli/ledger.ts', 'verify');
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stderr).not.toMatch(/kill \d+/);
    expect(res.code).toBe(0);
    expect(res.stdout.length).toBeGreaterThan(0);
  });
});
