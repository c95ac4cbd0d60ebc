import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { migrate } from '../../db/migrate';
import type { Sql } from '../../db/client';
import { seededRandom } from '../../app/utils/seeded-random';
import { available, createGenUser, openHolds, statusCounts } from '../support/generation';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { ledgerVerify, signIn, startDeployment, startTextRun, type AppProcess } from '../support/app-processes';

// The database goes away under a working deployment, again and again: 2 web and 2 worker processes
// (the compiled server) on a Postgres of the test's own, two users with a few hundred items at a
// slow provider, a load generator on the API and pages meanwhile, and a nemesis that terminates
// every backend of the app at random moments and restarts Postgres once (fast shutdown) mid-run.
// Seeded (NEMESIS_SEED): the same seed makes the same faults at the same moments of the run.
// At the end: every process alive, every item completed and charged once, no hold left open, the
// ledger verified, no answer but 2xx or 503, and no stored error naming the database.

const SEED = Number(process.env.NEMESIS_SEED ?? 20261127);
const ITEMS_PER_USER = 150;
const TERMINATIONS = 5;
const LATENCY_MS = 900;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-nemesis-'));
fs.chmodSync(dataDir, 0o755);
let pgPort: number;
let cluster: EmbeddedDatabase | undefined;
let url: string;
let db: Sql;
let openai: OpenAiServer;
let procs: AppProcess[] = [];

const startCluster = async () => {
  cluster = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: pgPort, persistent: true, fast: true });
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  pgPort = await freePort();
  await startCluster();
  url = cluster!.url;
  // The test's own connection survives the restart by reconnecting, like the app's.
  db = postgres(url, { max: 3, onnotice: () => {}, connection: { application_name: 'nemesis-test' } }) as unknown as Sql;
  await migrate(db);
  openai = await startOpenAiServer({ latencyMs: LATENCY_MS });
  procs = await startDeployment(['web', 'web', 'worker', 'worker'], {
    databaseUrl: url,
    env: {
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'sk-operator',
      GENERATION_CONCURRENCY: '10',
      GENERATION_CONCURRENCY_PER_USER: '10',
      GENERATION_LEASE_SECONDS: '10',
      LOG_LEVEL: 'warn',
    },
  });
}, 180_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  await openai?.close();
  await db?.end({ timeout: 1 });
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

type Answer = { path: string; status: number; retryAfter: string | null; type: string | null };

/** Requests of a signed-in client, round robin over the web processes, until `stop`. */
async function loadGenerator(web: AppProcess[], cookies: string[], runs: string[], stop: () => boolean, answers: Answer[]) {
  // Client c is user c % 2: its own run, its own cookie.
  const paths = (c: number) => [
    '/api/user',
    '/api/results?limit=20',
    `/api/jobs/${runs[c % runs.length]}`,
    '/app',
    '/app/results?_data=routes%2Fapp_.results',
  ];
  let n = 0;
  const client = async (c: number) => {
    while (!stop()) {
      const i = n++;
      const list = paths(c);
      const p = list[i % list.length]!;
      const app = web[i % web.length]!;
      const res = await fetch(app.url + p, { headers: { cookie: cookies[c % cookies.length]! }, redirect: 'manual' }).catch(() => null);
      if (res) {
        await res.arrayBuffer();
        answers.push({ path: p, status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type') });
      }
      await sleep(50);
    }
  };
  await Promise.all([0, 1, 2, 3].map(client));
}

/** Terminates every backend of the app (all but the test's own connections). */
async function terminateApp(): Promise<number> {
  const killer = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: 'nemesis-test' } });
  try {
    const rows = await killer`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
        AND application_name <> 'nemesis-test'`;
    return rows.length;
  } finally {
    await killer.end({ timeout: 1 });
  }
}

async function pendingItems(): Promise<number> {
  const [row] = await db<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE status = 'processing'`;
  return row!.n;
}

describe('the nemesis: backends terminated and Postgres restarted under load', () => {
  it(`seed ${SEED}: every process alive, every item completed and charged once, only 2xx and 503`, async () => {
    const random = seededRandom(SEED);
    const web = procs.filter((p) => p.role === 'web');
    const [alice, bob] = await Promise.all([
      createGenUser(db, { credits: ITEMS_PER_USER, label: 'alice' }),
      createGenUser(db, { credits: ITEMS_PER_USER, label: 'bob' }),
    ]);
    const before = { [alice.id]: await available(db, alice.id), [bob.id]: await available(db, bob.id) };
    const cookies = [await signIn(db, alice.id), await signIn(db, bob.id)];
    const topics = (who: string) => Array.from({ length: ITEMS_PER_USER }, (_, i) => `${who} topic ${i}`);
    const runs = [await startTextRun(web[0]!, cookies[0]!, topics('alice')), await startTextRun(web[1]!, cookies[1]!, topics('bob'))];

    const answers: Answer[] = [];
    let loadStops = false;
    const load = loadGenerator(web, cookies, runs, () => loadStops, answers);

    // The nemesis: TERMINATIONS kills at random moments, with one restart among them.
    const restartAt = Math.floor(random() * TERMINATIONS);
    const faults: string[] = [];
    let restart = { downMs: 0, readyMs: 0, firstItemMs: 0 };
    for (let f = 0; f < TERMINATIONS; f++) {
      await sleep(500 + Math.floor(random() * 2500));
      faults.push(`terminate ${await terminateApp()} backends`);
      if (f === restartAt) {
        await sleep(Math.floor(random() * 1000));
        const down = Date.now();
        await cluster!.stop();
        await sleep(1000 + Math.floor(random() * 2000));
        await startCluster();
        const back = Date.now();
        // Recovery: every process ready again, and an item completed after the database returned.
        await Promise.all(procs.map((p) => p.ready(60_000)));
        const readyMs = Date.now() - back;
        let firstItemMs = -1;
        for (const until = Date.now() + 60_000; Date.now() < until && firstItemMs < 0; await sleep(50)) {
          const [row] = await db<{ n: number }[]>`
            SELECT count(*)::int AS n FROM generation_results WHERE completed_at >= to_timestamp(${back / 1000})`;
          if (row!.n > 0) firstItemMs = Date.now() - back;
          if ((await pendingItems()) === 0) break;
        }
        restart = { downMs: back - down, readyMs, firstItemMs };
        faults.push(`restart: down ${restart.downMs} ms`);
      }
    }
    for (const until = Date.now() + 150_000; Date.now() < until && (await pendingItems()) > 0;) await sleep(250);
    loadStops = true;
    await load;

    // Every process lived through it.
    for (const p of procs)
      expect({ role: p.role, port: p.port, exit: p.child.exitCode ?? p.child.signalCode }).toMatchObject({ exit: null });
    for (const p of procs) expect(p.output()).not.toMatch(/uncaught error|Cannot read properties of null/);
    // Every item completed, none failed for the outage, each charged once, no hold left open.
    for (const run of runs) expect(await statusCounts(db, run)).toEqual({ completed: ITEMS_PER_USER });
    for (const user of [alice, bob]) {
      const [row] = await db<{ posts: number; voids: number; keys: number }[]>`
        SELECT count(*) FILTER (WHERE kind = 'post')::int AS posts, count(*) FILTER (WHERE kind = 'void')::int AS voids,
          count(DISTINCT idempotency_key) FILTER (WHERE kind = 'post')::int AS keys
        FROM ledger_entries WHERE user_id = ${user.id}`;
      expect(row).toEqual({ posts: ITEMS_PER_USER, voids: 0, keys: ITEMS_PER_USER });
      expect(await openHolds(db, user.id)).toBe(0);
      expect(await available(db, user.id)).toBe(before[user.id]! - ITEMS_PER_USER);
    }
    const leaks = await db<{ error: string }[]>`
      SELECT error FROM generation_results
      WHERE error ~* '(127\\.0\\.0\\.1|localhost|:[0-9]{4,5}|ECONN|CONNECTION_|postgres|terminating connection)'`;
    expect(leaks).toEqual([]);
    const verify = await ledgerVerify(url);
    expect(verify.code, verify.output).toBe(0);
    // The load generator saw answers, some of them 503 while the database was away, never a 500.
    const byStatus = answers.reduce<Record<number, number>>((acc, a) => ((acc[a.status] = (acc[a.status] ?? 0) + 1), acc), {});
    const bad = answers.filter((a) => !(a.status >= 200 && a.status < 300) && a.status !== 503);
    expect(bad.slice(0, 10).map((a) => `${a.status} ${a.path}`)).toEqual([]);
    for (const a of answers.filter((x) => x.status === 503)) expect(a.retryAfter).toBeTruthy();
    for (const a of answers.filter((x) => x.status === 503 && !x.path.startsWith('/app?') && x.path !== '/app'))
      expect(a.type).toContain('application/json');
    // Figures for the note (informative: timings stay out of pass/fail).
    const redelivered = openai.requests.length - 2 * ITEMS_PER_USER;
    console.info(JSON.stringify({ seed: SEED, faults, restart, answers: byStatus, providerCalls: openai.requests.length, redelivered }));
  }, 300_000);
});
