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
import { seededRandom } from '../../app/utils/seeded-random';

// The real server against a Postgres of its own, whose app connections the test terminates
// (pg_terminate_backend, as a failover or an operator does) and which it stops and starts again.
// Every page, API call and data request then answers its success or a translated 503 with
// Retry-After (JSON for the API and data requests), logged once with its request id; never a 500.
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
    if (child && child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${output.slice(-2000)}`);
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

const SEED = Number(process.env.OUTAGE_SEED) || 3317;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Language = 'en' | 'zh-HK';
const UNAVAILABLE: Record<Language, string> = {
  en: 'Postforge cannot reach its database right now. Please try again in a few seconds.',
  'zh-HK': 'Postforge 暫時無法連接資料庫，請過幾秒再試。',
};

/** One kind of request a signed-in client makes: `json` when its 503 must be JSON (API, data requests). */
type Kind = { name: string; json: boolean; ok: number; send: (language: Language) => Promise<Response> };
const call = (method: string, p: string, language: Language, body?: { type: string; text: string }) =>
  fetch(base + p, {
    method,
    headers: { cookie, 'accept-language': language, ...(body ? { 'content-type': body.type } : {}) },
    body: body?.text,
    redirect: 'manual',
  });
const KINDS: Kind[] = [
  { name: 'GET /api/user', json: true, ok: 200, send: (l) => call('GET', '/api/user', l) },
  { name: 'GET /api/results', json: true, ok: 200, send: (l) => call('GET', '/api/results', l) },
  { name: 'GET /api/credits/history', json: true, ok: 200, send: (l) => call('GET', '/api/credits/history', l) },
  {
    name: 'PATCH /api/user/settings',
    json: true,
    ok: 200,
    send: (l) => call('PATCH', '/api/user/settings', l, { type: 'application/json', text: '{"textCount":3}' }),
  },
  { name: 'GET /app', json: false, ok: 200, send: (l) => call('GET', '/app', l) },
  { name: 'GET /app?tab=results', json: false, ok: 200, send: (l) => call('GET', '/app?tab=results', l) },
  { name: 'GET /app?_data=root', json: true, ok: 200, send: (l) => call('GET', '/app?_data=root', l) },
  { name: 'GET /app?_data=routes/app', json: true, ok: 200, send: (l) => call('GET', '/app?_data=routes%2Fapp', l) },
  {
    name: 'POST /language?_data=routes/language',
    json: true,
    // A redirect answered to a data request: 204 with X-Remix-Redirect.
    ok: 204,
    send: (l) =>
      call('POST', '/language?_data=routes%2Flanguage', l, {
        type: 'application/x-www-form-urlencoded',
        text: 'language=en&redirectTo=%2Fapp',
      }),
  },
];

type Answer = { kind: string; language: Language; status: number; headers: Headers; body: string };

async function ask(kind: Kind, language: Language): Promise<Answer> {
  const res = await kind.send(language).catch((err: Error) => {
    // The server went away (it crashed): say why.
    throw new Error(`${kind.name}: ${err.message} (${String((err.cause as Error)?.message)}); the server said: ${output.slice(-3000)}`);
  });
  return { kind: kind.name, language, status: res.status, headers: res.headers, body: await res.text() };
}

/** The server's JSON log lines written since `from` (an offset into its output). */
function logLines(from: number): { level: number; msg?: string; requestId?: string }[] {
  return output
    .slice(from)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg?: string; requestId?: string });
}

/**
 * What is wrong with an answer given while the database was failing: anything but the kind's
 * success or a translated 503 with Retry-After (JSON for the API and data requests), and a 503 not
 * logged exactly once (one warn line with its request id, no stack).
 */
function problems(answers: Answer[], from: number): string[] {
  const lines = logLines(from);
  const found: string[] = [];
  for (const a of answers) {
    const kind = KINDS.find((k) => k.name === a.kind)!;
    const what = `${a.kind} → ${a.status}`;
    if (a.status === kind.ok) continue;
    if (a.status !== 503) {
      const to = a.headers.get('location') ?? a.headers.get('x-remix-redirect');
      found.push(`${what}${to ? ` to ${to}` : ''}: ${a.body.slice(0, 120)}`);
      continue;
    }
    if (!/^\d+$/.test(a.headers.get('retry-after') ?? '')) found.push(`${what} without Retry-After`);
    const type = a.headers.get('content-type') ?? '';
    if (kind.json) {
      if (!type.startsWith('application/json')) found.push(`${what} answered ${type}, not JSON`);
      else if (JSON.parse(a.body).error !== UNAVAILABLE[a.language]) found.push(`${what} in ${a.language} said ${a.body}`);
    } else if (!type.startsWith('text/html') || !a.body.includes(UNAVAILABLE[a.language])) {
      found.push(`${what} in ${a.language} answered ${type}: ${a.body.slice(0, 120)}`);
    }
    const id = a.headers.get('x-request-id');
    if (!id) {
      found.push(`${what} without X-Request-Id`);
      continue;
    }
    const logged = lines.filter((line) => line.requestId === id);
    if (logged.length !== 1 || logged[0]!.level !== 40 || 'stack' in logged[0]! || JSON.stringify(logged[0]).includes('    at '))
      found.push(`${what} logged ${logged.length} times: ${JSON.stringify(logged).slice(0, 300)}`);
  }
  return found;
}

const tally = (answers: Answer[]) =>
  answers.reduce<Record<number, number>>((counts, a) => ((counts[a.status] = (counts[a.status] ?? 0) + 1), counts), {});

describe("while the app's connections are terminated", () => {
  it('every answer is its success or a translated, logged 503, never a 500', async () => {
    const next = seededRandom(SEED);
    const from = output.length;
    const killer = postgres(cluster!.url, { max: 1, onnotice: () => {} });
    const answers: Answer[] = [];
    let clientsDone = false;
    let terminations = 0;
    let killed = 0;
    let nemesis: Promise<void> | undefined;
    try {
      // Bounded: four clients of 60 requests each, and a nemesis that terminates every backend of
      // the app (web pool) every 20-100 ms while they run.
      const pauses = Array.from({ length: 200 }, () => 20 + Math.floor(next() * 80));
      const plans = Array.from({ length: 4 }, () =>
        Array.from({ length: 60 }, () => ({
          kind: KINDS[Math.floor(next() * KINDS.length)]!,
          language: (next() < 0.5 ? 'en' : 'zh-HK') as Language,
        })),
      );
      nemesis = (async () => {
        for (const pause of pauses) {
          if (clientsDone) break;
          await sleep(pause);
          const [row] = await killer<{ n: number }[]>`
            SELECT count(*)::int AS n FROM (
              SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'postforge%') AS t`;
          terminations++;
          killed += row!.n;
        }
      })();
      await Promise.all(
        plans.map(async (plan) => {
          for (const { kind, language } of plan) answers.push(await ask(kind, language));
        }),
      );
    } finally {
      clientsDone = true;
      await nemesis?.catch(() => {});
      await killer.end();
    }
    const counts = tally(answers);
    console.info(`seed ${SEED}: ${terminations} terminations (${killed} backends), answers ${JSON.stringify(counts)}`);
    // A log line may trail its answer by a moment.
    await sleep(200);
    // Each kind of problem once, with how often it came.
    const found = problems(answers, from).reduce<Record<string, number>>((seen, p) => ((seen[p] = (seen[p] ?? 0) + 1), seen), {});
    expect(found).toEqual({});
    expect(counts[500] ?? 0).toBe(0);
    expect(terminations).toBeGreaterThan(5);
  }, 120_000);
});

describe('after idle connections were terminated', () => {
  it('a read that meets one is served again on a fresh connection: no 503', async () => {
    const reads = KINDS.filter((k) => k.name.startsWith('GET '));
    const killer = postgres(cluster!.url, { max: 1, onnotice: () => {} });
    const answers: Answer[] = [];
    try {
      for (let round = 0; round < 5; round++) {
        // Every pooled connection in use once, then idle; then their backends are terminated and,
        // before the pool can notice, each kind of read is asked at once.
        await Promise.all(reads.map((k) => ask(k, 'en')));
        await killer`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'postforge%'`;
        answers.push(...(await Promise.all(reads.map((k) => ask(k, 'en')))));
      }
    } finally {
      await killer.end();
    }
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.kind} → ${a.status}`)).toEqual([]);
  }, 60_000);
});

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

describe('the first request to find Postgres stopped', () => {
  it.each(KINDS.map((k) => [k.name, k] as const))(
    '%s answers a translated, logged 503; /readyz too, until it returns',
    async (_name, kind) => {
      // Nothing has found the database gone yet: this request is the first to.
      await waitFor(async () => (await get('/app')).status === 200, 'the app before the outage');
      await cluster!.stop();
      const from = output.length;
      let answers: Answer[];
      let ready: Response;
      try {
        answers = [await ask(kind, 'zh-HK'), await ask(kind, 'en')];
        ready = await fetch(`${base}/readyz`);
      } finally {
        // Back whatever happened, so the next case starts from a running database.
        await startCluster();
      }
      // A log line may trail its answer by a moment.
      await sleep(100);
      expect(problems(answers, from)).toEqual([]);
      expect(answers.map((a) => a.status)).toEqual([503, 503]);
      expect(ready.status).toBe(503);
      await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, '/readyz after Postgres returned');
      await waitFor(async () => (await ask(kind, 'en')).status === kind.ok, `${kind.name} after Postgres returned`);
    },
    60_000,
  );
});
