import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { freshDatabase } from '../support/database';
import { available, createGenUser, openHolds, statusCounts, waitForRun } from '../support/generation';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { ledgerVerify, signIn, startAppProcess, startTextRun, type AppProcess, type Role } from '../support/app-processes';

// One Postgres, the compiled server as 2 ROLE=web and 2 ROLE=worker processes.
// Each worker calls the provider with its own operator key, so the provider's log says which
// process asked. Runs are started through the web processes' JSON API, as a client does.

const CONCURRENCY = 10;
const PER_USER = 10;
const LEASE_SECONDS = 5;
const WORKER_KEYS = ['sk-worker-0', 'sk-worker-1'];

let openai: OpenAiServer;
let db: Sql;
let url: string;
let web: AppProcess[];
let workers: AppProcess[];
/** Keys whose requests the provider never answers (a worker stuck at its provider). */
const stuck = new Set<string>();

beforeAll(async () => {
  openai = await startOpenAiServer({
    latencyMs: 100,
    script: (req) => (stuck.has(req.authorization?.replace('Bearer ', '') ?? '') ? { kind: 'hang' } : undefined),
  });
  url = await freshDatabase(inject('clusterUrl'), 'pf_many_gen');
  db = connect(url, 4);
  const base = {
    OPENROUTER_BASE_URL: openai.url,
    GENERATION_CONCURRENCY: String(CONCURRENCY),
    GENERATION_CONCURRENCY_PER_USER: String(PER_USER),
    GENERATION_LEASE_SECONDS: String(LEASE_SECONDS),
  };
  const roles: [Role, string][] = [
    ['web', 'sk-web'],
    ['web', 'sk-web'],
    ['worker', WORKER_KEYS[0]!],
    ['worker', WORKER_KEYS[1]!],
  ];
  const procs = await Promise.all(
    roles.map(([role, key]) => startAppProcess(role, { databaseUrl: url, env: { ...base, OPENROUTER_API_KEY: key } })),
  );
  await Promise.all(procs.map((p) => p.ready()));
  web = procs.slice(0, 2);
  workers = procs.slice(2);
}, 120_000);

afterAll(async () => {
  await Promise.all([...(web ?? []), ...(workers ?? [])].map((p) => p.stop('SIGKILL')));
  await openai?.close();
  await db?.end();
});

const keyOf = (r: { authorization: string | undefined }) => r.authorization?.replace('Bearer ', '');

async function charges(userId: string) {
  const [row] = await db<{ posts: number; voids: number; keys: number }[]>`
    SELECT count(*) FILTER (WHERE kind = 'post')::int AS posts, count(*) FILTER (WHERE kind = 'void')::int AS voids,
      count(DISTINCT idempotency_key) FILTER (WHERE kind = 'post')::int AS keys
    FROM ledger_entries WHERE user_id = ${userId}`;
  return row!;
}

/** Every generate-item job of the run's items ended completed (none left active or queued). */
async function jobsSettled(timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'generate-item' AND state <> 'completed'`;
    if (row!.n === 0) return;
    if (Date.now() > until) throw new Error(`${row!.n} generate-item jobs not completed`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, ms = 60_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('two web and two worker processes on one Postgres', () => {
  it('two users, 300 items each through different web processes: each item done and charged once, neither waits behind the other', async () => {
    const ITEMS = 300;
    const [alice, bob] = await Promise.all([
      createGenUser(db, { credits: ITEMS, label: 'alice' }),
      createGenUser(db, { credits: ITEMS, label: 'bob' }),
    ]);
    const before = { alice: await available(db, alice.id), bob: await available(db, bob.id) };
    const topics = (who: string) => Array.from({ length: ITEMS }, (_, i) => `${who} topic ${i}`);
    const runA = await startTextRun(web[0]!, await signIn(db, alice.id), topics('alice'));
    // Bob starts once Alice's run is well under way: without per-user fairness across processes his
    // first item would wait behind her remaining ~280.
    await waitFor(async () => ((await statusCounts(db, runA)).completed ?? 0) >= 20, "Alice's first items");
    const runB = await startTextRun(web[1]!, await signIn(db, bob.id), topics('bob'));
    // Bob's items are committed (and his jobs claimable) once the API has answered.
    const bobQueuedAt = Date.now();
    await waitForRun(db, runA, 150_000);
    await waitForRun(db, runB, 150_000);
    await jobsSettled();

    expect(await statusCounts(db, runA)).toEqual({ completed: ITEMS });
    expect(await statusCounts(db, runB)).toEqual({ completed: ITEMS });
    // Each item went to the provider once, from one of the two workers; both workers took part.
    const asked = openai.requests.map((r) => r.topic);
    expect(asked).toHaveLength(2 * ITEMS);
    expect(new Set(asked).size).toBe(2 * ITEMS);
    for (const key of WORKER_KEYS) expect(openai.requests.filter((r) => keyOf(r) === key).length).toBeGreaterThan(0);
    // Charged once each: one post per item, no void, no hold left, balances down by the run.
    for (const [user, start] of [
      [alice, before.alice],
      [bob, before.bob],
    ] as const) {
      expect(await charges(user.id)).toEqual({ posts: ITEMS, voids: 0, keys: ITEMS });
      expect(await openHolds(db, user.id)).toBe(0);
      expect(await available(db, user.id)).toBe(start - ITEMS);
    }
    // Fairness: Bob's first request went out after at most the items Alice's leases already covered
    // (the per-user cap counts items at the provider and next in line, across processes)...
    const afterBob = openai.requests.filter((r) => r.at >= bobQueuedAt);
    const firstBob = afterBob.findIndex((r) => r.topic.startsWith('bob'));
    expect(firstBob).toBeGreaterThanOrEqual(0);
    expect(firstBob).toBeLessThanOrEqual(2 * PER_USER);
    // ...and while both had work, they shared the provider (each about half).
    const lastAlice = afterBob.map((r) => r.topic.startsWith('alice')).lastIndexOf(true);
    const shared = afterBob.slice(firstBob, lastAlice + 1);
    const bobShare = shared.filter((r) => r.topic.startsWith('bob')).length / shared.length;
    expect(bobShare).toBeGreaterThan(0.3);

    // The sizing of docs/operators.md: a web copy holds at most DATABASE_POOL_MAX + 4 (pg-boss) connections, a
    // worker DATABASE_POOL_MAX + JOBS_POOL_MAX + 4 + 1 (LISTEN) + 1 (the claims); this test's own pool holds 4.
    const [{ connections }] = await db<{ connections: number }[]>`
      SELECT count(*)::int AS connections FROM pg_stat_activity WHERE datname = current_database()`;
    expect(connections).toBeLessThanOrEqual(2 * (10 + 4) + 2 * (10 + 5 + 4 + 1 + 1) + 4);

    const verify = await ledgerVerify(url);
    expect(verify.code, verify.output).toBe(0);
  }, 240_000);

  it('a worker killed while it holds items: the other finishes them after the lease, nothing charged twice or left open', async () => {
    const ITEMS = 40;
    const carol = await createGenUser(db, { credits: ITEMS, label: 'carol' });
    const before = await available(db, carol.id);
    const asked = openai.requests.length;
    // Worker 0's provider never answers: the items it claims stay with it until it dies. Worker 1
    // is paused (SIGSTOP) meanwhile, so that worker 0 is the one that claims them.
    stuck.add(WORKER_KEYS[0]!);
    workers[1]!.child.kill('SIGSTOP');
    const run = await startTextRun(
      web[0]!,
      await signIn(db, carol.id),
      Array.from({ length: ITEMS }, (_, i) => `carol topic ${i}`),
    );
    const heldByZero = () => openai.requests.slice(asked).filter((r) => keyOf(r) === WORKER_KEYS[0]).length;
    await waitFor(() => heldByZero() > 0, 'worker 0 to hold items');
    const killedHeld = heldByZero();
    workers[0]!.child.kill('SIGKILL');
    await workers[0]!.exited;
    workers[1]!.child.kill('SIGCONT');
    await waitForRun(db, run, 120_000);
    await jobsSettled();

    expect(await statusCounts(db, run)).toEqual({ completed: ITEMS });
    // The items worker 0 had at its provider were asked again by worker 1 (after the lease).
    const fromOne = openai.requests.slice(asked).filter((r) => keyOf(r) === WORKER_KEYS[1]);
    expect(new Set(fromOne.map((r) => r.topic)).size).toBe(ITEMS);
    expect(killedHeld).toBeGreaterThan(0);
    expect(await charges(carol.id)).toEqual({ posts: ITEMS, voids: 0, keys: ITEMS });
    expect(await openHolds(db, carol.id)).toBe(0);
    expect(await available(db, carol.id)).toBe(before - ITEMS);
    const [{ leased }] = await db<{ leased: number }[]>`
      SELECT count(*)::int AS leased FROM generation_results WHERE run_id = ${run} AND lease_until > now()`;
    expect(leased).toBe(0);
    const verify = await ledgerVerify(url);
    expect(verify.code, verify.output).toBe(0);
  }, 180_000);
});
