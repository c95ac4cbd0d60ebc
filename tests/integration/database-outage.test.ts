import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCookie } from '@remix-run/node';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { migrate } from '../../db/migrate';
import type { Sql } from '../../db/client';

// The real server against a Postgres of its own, which the test stops and starts again. Fails
// without the outage handling: signed-in pages waited for the connect timeout, then answered 500.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-outage-'));
fs.chmodSync(dataDir, 0o755);
const SECRET = 'outage-test-session-secret-0123456789';
let pgPort: number;
let cluster: EmbeddedDatabase | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
let output = '';
let base = '';
let cookie = '';

const startCluster = async () => {
  cluster = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: pgPort, persistent: true, fast: true });
};

async function waitFor(check: () => Promise<boolean>, what: string, ms = 45_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}: ${output.slice(-2000)}`);
}

beforeAll(async () => {
  pgPort = await freePort();
  await startCluster();
  const sql = postgres(cluster!.url, { max: 1, onnotice: () => {} }) as unknown as Sql;
  await migrate(sql);
  const [user] = await sql<{ id: string }[]>`INSERT INTO users (email, name) VALUES ('outage@example.com', 'Outage Tester') RETURNING id`;
  const sessionId = crypto.randomBytes(32).toString('base64url');
  await sql`INSERT INTO sessions (id, user_id, expires_at)
            VALUES (${crypto.createHash('sha256').update(sessionId).digest('hex')}, ${user!.id}, now() + interval '30 days')`;
  await sql.end();
  cookie = (await createCookie('__session', { path: '/', secrets: [SECRET] }).serialize(sessionId)).split(';')[0]!;

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(tsx, ['server.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      ROLE: 'web',
      PORT: String(port),
      DATABASE_URL: cluster!.url,
      SESSION_SECRET: SECRET,
      ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
      LOG_LEVEL: 'warn',
    },
  });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, '/readyz', 120_000);
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const get = (p: string, headers: Record<string, string> = {}) => fetch(base + p, { headers: { cookie, ...headers }, redirect: 'manual' });

describe('while Postgres is down', () => {
  it('signed-in pages answer a translated 503 quickly and recover by themselves', async () => {
    expect((await get('/app')).status).toBe(200);

    await cluster!.stop();
    const started = Date.now();
    const page = await get('/app');
    const ms = Date.now() - started;
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBeTruthy();
    expect(await page.text()).toContain('cannot reach its database');
    console.info(`503 after ${ms} ms`); // informative: timings stay out of pass/fail

    const zh = await get('/app', { 'accept-language': 'zh-HK' });
    expect(zh.status).toBe(503);
    expect(await zh.text()).toContain('暫時無法連接資料庫');

    const api = await get('/api/user');
    expect(api.status).toBe(503);
    expect(await api.json()).toEqual({ error: expect.stringContaining('database') });
    expect((await fetch(`${base}/readyz`)).status).toBe(503);

    await startCluster();
    await waitFor(async () => (await get('/app')).status === 200, 'the signed-in page after Postgres returned');
    expect((await get('/api/user')).status).toBe(200);
  }, 120_000);
});
