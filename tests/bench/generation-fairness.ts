// Part 4 of `npm run bench:generation` (BENCH_PART=queue runs only it): a deep queue shared by many
// users, through the compiled server as one ROLE=web process and BENCH_QUEUE_WORKERS (2) ROLE=worker
// processes on one Postgres, against the OpenAI test server at a fixed latency.
//   a. BENCH_QUEUE_USERS (100) users queue BENCH_QUEUE_ITEMS (100,000) items in all, their starts
//      spread over BENCH_QUEUE_SPREAD_S (a tenth of the ideal time, at most 60 s), so late users
//      join a queue thousands deep. Each user's first item must reach the provider within 2 s of
//      that user's POST; the whole within 5 % of ceil(N / total concurrency) × latency.
//   b. BENCH_QUEUE_BURST_USERS (10) users × BENCH_QUEUE_BURST_ITEMS (1,000) items, all at once:
//      within 5 % of the same ideal.
// The claim's time is each claim as a worker sees it (the loop's `generation: claim` debug line):
// percentiles over the run and the worst p99 of any 10 s window; and the query's own time inside
// PostgreSQL (its lock wait and its work, from the database's clock) the same way. The database's
// size and dead tuples are read before and after each run.
// BENCH_QUEUE_LATENCY_MS (2000) and BENCH_QUEUE_CONCURRENCY (50 per process) set the ideal; the
// per-user cap is raised above what the processes hold (a lone early user must not be what
// limits the providers; fairness comes from the queue's order, not the cap).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type Sql } from '../../db/client';
import { freshDatabase, type TestCluster } from '../support/database';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { createGenUser } from '../support/generation';
import { signIn, startDeployment, startTextRun, type AppProcess, type Role } from '../support/app-processes';

const USERS = Number(process.env.BENCH_QUEUE_USERS ?? 100);
const ITEMS = Number(process.env.BENCH_QUEUE_ITEMS ?? 100_000);
const BURST_USERS = Number(process.env.BENCH_QUEUE_BURST_USERS ?? 10);
const BURST_ITEMS = Number(process.env.BENCH_QUEUE_BURST_ITEMS ?? 1000);
const WORKERS = Number(process.env.BENCH_QUEUE_WORKERS ?? 2);
const LATENCY = Number(process.env.BENCH_QUEUE_LATENCY_MS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_QUEUE_CONCURRENCY ?? 50);
const PARTS = (process.env.BENCH_QUEUE_PARTS ?? 'deep,burst').split(',');
// Each answer's latency drawn from LATENCY × (1 ± JITTER), evenly: a real provider's answers do not
// all take the same time (0: every answer takes LATENCY, so slots filled together free together).
const JITTER = Number(process.env.BENCH_QUEUE_JITTER ?? 0);
const TOTAL = WORKERS * CONCURRENCY;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const pct = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Health = { size: number; tables: { name: string; live: number; dead: number; autovacuums: number }[] };

/** The database's size and its busiest tables' live and dead tuples. */
async function health(db: Sql): Promise<Health> {
  // The counters are sent by backends on their own schedule: a moment for the last ones to land.
  await sleep(1000);
  const [size] = await db<{ n: string }[]>`SELECT pg_database_size(current_database()) AS n`;
  const tables = await db<{ name: string; live: string; dead: string; autovacuums: string }[]>`
    SELECT schemaname || '.' || relname AS name, n_live_tup AS live, n_dead_tup AS dead, autovacuum_count + vacuum_count AS autovacuums
    FROM pg_stat_user_tables ORDER BY n_live_tup + n_dead_tup DESC LIMIT 8`;
  return {
    size: Number(size!.n),
    tables: tables.map((t) => ({ name: t.name, live: Number(t.live), dead: Number(t.dead), autovacuums: Number(t.autovacuums) })),
  };
}

function printHealth(label: string, h: Health) {
  console.log(`   ${label}: database ${(h.size / 1024 / 1024).toFixed(1)} MB`);
  for (const t of h.tables)
    console.log(
      `      ${t.name.padEnd(40)} live ${String(t.live).padStart(8)}  dead ${String(t.dead).padStart(8)}  vacuums ${t.autovacuums}`,
    );
}

type Claim = { at: number; ms: number; queryMs: number; got: number; parts: Record<string, number> };
/** The round trip's parts, when the worker's claim line has them (claim.server.ts ClaimTiming). */
const PARTS_OF_CLAIM = ['waitMs', 'lockMs', 'workMs', 'readMs'] as const;
const PART_NAMES: Record<(typeof PARTS_OF_CLAIM)[number], string> = {
  waitMs: 'sent → begun',
  lockMs: 'begun → locked',
  workMs: 'locked → ended',
  readMs: 'ended → read',
};

/** The claim lines in a worker's output since `from` (ms since the epoch). */
function claimsIn(output: string, from: number): Claim[] {
  const out: Claim[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('"generation: claim"')) continue;
    const j = JSON.parse(line) as { time: number; claimMs: number; queryMs?: number; got: number } & Record<string, number>;
    const parts = Object.fromEntries(PARTS_OF_CLAIM.filter((k) => typeof j[k] === 'number').map((k) => [k, j[k]!]));
    if (j.time >= from) out.push({ at: j.time, ms: j.claimMs, queryMs: j.queryMs ?? NaN, got: j.got, parts });
  }
  return out;
}

/** The workers' claim lines since `from` (ms since the epoch). */
function claimsOf(workers: AppProcess[], from: number): Claim[] {
  return workers.flatMap((w) => claimsIn(w.output(), from)).sort((a, b) => a.at - b.at);
}

type ClaimStats = { calls: number; ms: number };

/** generation_claim's calls and time inside Postgres (track_functions), to tell it from waits. */
async function claimStats(db: Sql): Promise<ClaimStats> {
  const [row] = await db<{ calls: string; ms: number }[]>`
    SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(total_time), 0) AS ms FROM pg_stat_user_functions WHERE funcname = 'generation_claim'`;
  return { calls: Number(row!.calls), ms: Number(row!.ms) };
}

/** The p99 of each 10 s window (of the clock, in order) of timed events. */
function windowP99s(events: { at: number; ms: number }[]): number[] {
  const windows = new Map<number, number[]>();
  for (const e of events) {
    const w = Math.floor(e.at / 10_000);
    const xs = windows.get(w);
    if (xs) xs.push(e.ms);
    else windows.set(w, [e.ms]);
  }
  return [...windows.entries()].sort((a, b) => a[0] - b[0]).map(([, xs]) => pct(xs, 99));
}

/** A claim's query inside PostgreSQL, begun → ended: its lock wait and its own work. */
const insideMs = (c: Claim) => (c.parts.lockMs ?? NaN) + (c.parts.workMs ?? NaN);

function printClaims(claims: Claim[]) {
  const ms = claims.map((c) => c.ms);
  const p99s = windowP99s(claims);
  const worst = Math.max(...p99s);
  console.log(
    `   claims: ${claims.length} (${(claims.reduce((a, c) => a + c.got, 0) / Math.max(1, claims.length)).toFixed(1)} items each on average); ` +
      `p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${pct(ms, 100).toFixed(1)} ms; ` +
      `worst 10 s window p99 ${worst.toFixed(1)} ms (${worst < 50 ? 'under' : 'OVER'} 50 ms)`,
  );
  // Of it, the statement's round trip from its sending (the pool's wait for a connection, the
  // lock's, the query, the answer read by a busy event loop); the rest is the loop's own turns.
  const part = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms`;
  console.log(
    `      the statement's round trip ${part(claims.map((c) => c.queryMs))}; the rest ${part(claims.map((c) => c.ms - c.queryMs))}`,
  );
  const p99 = pct(ms, 99); // once: a sort per claim was minutes at 100,000 items
  const slow = claims.filter((c) => c.ms >= p99);
  const gotOf = (xs: Claim[]) => (xs.reduce((a, c) => a + c.got, 0) / Math.max(1, xs.length)).toFixed(1);
  console.log(
    `      the slowest 1 % claimed ${gotOf(slow)} items each on average; p99 of each 10 s window: ${p99s.map((x) => x.toFixed(0)).join(' ')}`,
  );
  // The query inside PostgreSQL, from its beginning to its end: the wait for the other worker's
  // claim (its lock) and its own work, without the worker's side (sending it, reading the answer
  // while a wave of the provider's answers keeps its event loop busy).
  const inside = claims.map((c) => ({ at: c.at, ms: insideMs(c) })).filter((c) => Number.isFinite(c.ms));
  if (inside.length > 0) {
    const insideP99s = windowP99s(inside);
    const worstInside = Math.max(...insideP99s);
    console.log(
      `      the query inside PostgreSQL (begun → ended): ${part(inside.map((c) => c.ms))}, max ${pct(
        inside.map((c) => c.ms),
        100,
      ).toFixed(1)} ms; worst 10 s window p99 ${worstInside.toFixed(1)} ms (${worstInside < 50 ? 'under' : 'OVER'} 50 ms); ` +
        `each window: ${insideP99s.map((x) => x.toFixed(0)).join(' ')}`,
    );
  }
  for (const k of PARTS_OF_CLAIM) {
    const xs = claims.map((c) => c.parts[k]).filter((x): x is number => x !== undefined && Number.isFinite(x));
    if (xs.length === 0) continue;
    const ys = slow.map((c) => c.parts[k]).filter((x): x is number => x !== undefined && Number.isFinite(x));
    const mean = ys.reduce((a, x) => a + x, 0) / Math.max(1, ys.length);
    console.log(
      `      ${PART_NAMES[k].padEnd(15)} ${part(xs)}; in the slowest 1 %: mean ${mean.toFixed(1)} ms, max ${pct(ys, 100).toFixed(1)} ms`,
    );
  }
}

/**
 * Where each user's first-item wait went, step by step, from the first item's job: the POST until
 * its transaction began (job created_on: the request's parsing and checks), that transaction until
 * the POST's answer (the inserts and commit), the answer until a worker claimed the job (started_on:
 * the wake-up and the claim's order), the claim until the request reached the provider (a free slot,
 * the key, the process's event loop and the bench's own).
 */
async function printFirstItemSteps(db: Sql, runs: string[], starts: number[], answered: number[], first: Map<number, number>) {
  const rows = await db<{ runId: string; created: number; claimed: number | null }[]>`
    SELECT r.run_id AS "runId", extract(epoch FROM j.created_on) * 1000 AS created, extract(epoch FROM j.started_on) * 1000 AS claimed
    FROM generation_results r JOIN pgboss.job j ON j.name = 'generate-item' AND j.data->>'resultId' = r.id::text
    WHERE r.run_id = ANY(${runs}::uuid[]) AND r.position = 0`;
  const byRun = new Map(rows.map((r) => [r.runId, r]));
  const steps: Record<string, number[]> = {
    'POST → transaction': [],
    'transaction → answer': [],
    'answer → claim': [],
    'claim → provider': [],
  };
  runs.forEach((runId, k) => {
    const j = byRun.get(runId);
    const at = first.get(k);
    if (!j || j.claimed === null || at === undefined) return;
    const done = starts[k]! + answered[k]!;
    steps['POST → transaction']!.push(Number(j.created) - starts[k]!);
    steps['transaction → answer']!.push(done - Number(j.created));
    steps['answer → claim']!.push(Number(j.claimed) - done);
    steps['claim → provider']!.push(at - Number(j.claimed));
  });
  for (const [name, xs] of Object.entries(steps))
    console.log(
      `      ${name.padEnd(22)} p50 ${pct(xs, 50).toFixed(0).padStart(6)} ms, p90 ${pct(xs, 90).toFixed(0).padStart(6)} ms, max ${pct(xs, 100).toFixed(0).padStart(6)} ms`,
    );
}

/**
 * Starts each user's run at its offset (ms from now) and waits until every item has ended.
 * Returns the figures against the ideal.
 */
async function runUsers(
  label: string,
  web: AppProcess,
  workers: AppProcess[],
  openai: OpenAiServer,
  db: Sql,
  users: { id: string; cookie: string; items: number; offset: number }[],
) {
  const n = users.reduce((a, u) => a + u.items, 0);
  const ideal = Math.ceil(n / TOTAL) * (LATENCY / 1000);
  const before = await health(db);
  const inDb0 = await claimStats(db);
  const firstRequest = openai.requests.length;
  const t0 = Date.now();
  const starts: number[] = [];
  const answered: number[] = [];
  // A line a minute while the run lasts (a deep run takes half an hour): the last minute's claims by
  // 10 s window, read from the workers' output since the last line (the whole of it grows large).
  const read = workers.map(() => 0);
  let pending: Claim[] = [];
  const progress = setInterval(() => {
    workers.forEach((w, i) => {
      const out = w.output();
      const end = out.lastIndexOf('\n') + 1;
      if (end > read[i]!) pending.push(...claimsIn(out.slice(read[i], end), t0));
      read[i] = Math.max(read[i]!, end);
    });
    const upTo = Math.floor(Date.now() / 10_000) * 10_000; // whole windows only, as printClaims counts them
    const done = pending.filter((c) => c.at < upTo);
    pending = pending.filter((c) => c.at >= upTo);
    const inside = done.map((c) => ({ at: c.at, ms: insideMs(c) })).filter((c) => Number.isFinite(c.ms));
    const line = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
    console.log(
      `   … ${((Date.now() - t0) / 1000).toFixed(0)} s: p99 of the last 10 s windows ${line(windowP99s(done))} ms ` +
        `(inside PostgreSQL ${line(windowP99s(inside))})`,
    );
  }, 60_000);
  const runs = await Promise.all(
    users.map(async (u, k) => {
      await sleep(u.offset);
      starts[k] = Date.now();
      const id = await startTextRun(
        web,
        u.cookie,
        Array.from({ length: u.items }, (_, i) => `${label} u${k} item ${i}`),
      );
      answered[k] = Date.now() - starts[k]!;
      return id;
    }),
  );
  for (;;) {
    const [row] = await db<{ n: number }[]>`
      SELECT count(*)::int AS n FROM generation_results WHERE run_id = ANY(${runs}::uuid[]) AND status = 'processing'`;
    if (row!.n === 0) break;
    await sleep(1000);
  }
  clearInterval(progress);
  const [end] = await db<{ at: Date; completed: number; failed: number }[]>`
    SELECT max(coalesce(completed_at, updated_at)) AS at, count(*) FILTER (WHERE status = 'completed')::int AS completed,
      count(*) FILTER (WHERE status = 'failed')::int AS failed
    FROM generation_results WHERE run_id = ANY(${runs}::uuid[])`;
  const wall = (end!.at.getTime() - t0) / 1000;
  // Each user's first item at the provider, after that user's POST was sent.
  const first = new Map<number, number>();
  const re = new RegExp(`^${label} u(\\d+) item`);
  for (const r of openai.requests.slice(firstRequest)) {
    const m = r.topic.match(re);
    if (!m) continue;
    const k = Number(m[1]);
    if (!first.has(k) || r.at < first.get(k)!) first.set(k, r.at);
  }
  const waits = users.map((_, k) => (first.get(k) ?? Infinity) - starts[k]!);
  const late = waits.filter((w) => w > 2000).length;
  // The same from the POST's answer (the run and its items written): the queue's share of the wait.
  const queued = waits.map((w, k) => w - answered[k]!);
  console.log(
    `\n   ${label}: ${users.length} users, ${n} items (${users.map((u) => u.items).join('/') === users.map(() => users[0]!.items).join('/') ? `${users[0]!.items} each` : 'uneven'}), ` +
      `starts spread over ${(Math.max(...users.map((u) => u.offset)) / 1000).toFixed(0)} s`,
  );
  console.log(
    `   completed ${end!.completed}, failed ${end!.failed}; POST p50 ${pct(answered, 50)} ms, max ${pct(answered, 100)} ms; ` +
      `provider max in flight ${openai.maxInFlight()} (slots ${TOTAL}, and a run's first item may go over them)`,
  );
  console.log(
    `   wall ${wall.toFixed(1)} s vs ideal ${ideal.toFixed(0)} s = ${(wall / ideal).toFixed(3)} × ideal (${wall / ideal <= 1.05 ? 'within' : 'OVER'} 5 %)`,
  );
  console.log(
    `   first item at the provider after the user's POST: p50 ${pct(waits, 50)} ms, p99 ${pct(waits, 99)} ms, max ${pct(waits, 100)} ms; ${late} of ${users.length} users over 2 s`,
  );
  console.log(`   … after the POST's answer: p50 ${pct(queued, 50)} ms, p99 ${pct(queued, 99)} ms, max ${pct(queued, 100)} ms`);
  await printFirstItemSteps(db, runs, starts, answered, first);
  printClaims(claimsOf(workers, t0));
  const inDb = await claimStats(db);
  console.log(
    `   inside Postgres: ${inDb.calls - inDb0.calls} calls of generation_claim, ${((inDb.ms - inDb0.ms) / Math.max(1, inDb.calls - inDb0.calls)).toFixed(2)} ms each on average`,
  );
  printHealth('before', before);
  printHealth('after', await health(db));
  const load = os.loadavg().map((x) => x.toFixed(1));
  console.log(`   load average at the end: ${load.join(', ')} (${os.cpus().length} cores)`);
}

export async function benchQueue(cluster: TestCluster): Promise<void> {
  if (!fs.existsSync(path.join(root, 'build/server/index.js'))) throw new Error('run `npm run build` first');
  console.log(
    `\n4. A deep shared queue: ${WORKERS} worker processes × GENERATION_CONCURRENCY ${CONCURRENCY} = ${TOTAL} at the provider, latency ${LATENCY} ms` +
      (JITTER > 0 ? ` ± ${JITTER * 100} %` : ''),
  );
  const url = await freshDatabase(cluster.url, 'pf_bench_queue');
  const db = connect(url, 4);
  // The claim function's own time (pg_stat_user_functions), apart from the pool and lock waits.
  await db.unsafe(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET track_functions = 'pl'`);
  const openai = await startOpenAiServer({
    latencyMs: LATENCY,
    ...(JITTER > 0
      ? { script: () => ({ kind: 'ok' as const, latencyMs: Math.round(LATENCY * (1 + JITTER * (2 * Math.random() - 1))) }) }
      : {}),
  });
  const roles: Role[] = ['web', ...Array.from({ length: WORKERS }, () => 'worker' as const)];
  const procs = await startDeployment(roles, {
    databaseUrl: url,
    env: {
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'sk-bench',
      GENERATION_CONCURRENCY: String(CONCURRENCY),
      GENERATION_CONCURRENCY_PER_USER: String(Math.min(500, 2 * TOTAL)),
      MAX_TOPICS_PER_RUN: String(Math.max(1000, Math.ceil(ITEMS / USERS), BURST_ITEMS)),
      // The workers' claim lines (the web process has none).
      LOG_LEVEL: 'debug',
    },
  });
  const [web, ...workers] = procs;
  try {
    // Warm every worker: a first round of items (the provider client's first use, its connections).
    const warmUser = await createGenUser(db, { credits: 2 * TOTAL + 10, label: 'bench-queue-warm' });
    const warmRun = await startTextRun(
      web!,
      await signIn(db, warmUser.id),
      Array.from({ length: 2 * TOTAL }, (_, i) => `warm-up ${i}`),
    );
    for (;;) {
      const [row] = await db<{ n: number }[]>`
        SELECT count(*)::int AS n FROM generation_results WHERE run_id = ${warmRun} AND status = 'processing'`;
      if (row!.n === 0) break;
      await sleep(200);
    }
    const makeUsers = async (label: string, count: number, items: (k: number) => number, offset: (k: number) => number) =>
      Promise.all(
        Array.from({ length: count }, async (_, k) => {
          const u = await createGenUser(db, { credits: items(k) + 10, label });
          return { id: u.id, cookie: await signIn(db, u.id), items: items(k), offset: offset(k) };
        }),
      );
    if (PARTS.includes('deep')) {
      const ideal = Math.ceil(ITEMS / TOTAL) * LATENCY;
      const spread = Number(process.env.BENCH_QUEUE_SPREAD_S ?? Math.min(60, ideal / 10_000)) * 1000;
      const per = (k: number) => Math.floor(ITEMS / USERS) + (k < ITEMS % USERS ? 1 : 0);
      const users = await makeUsers('deep', USERS, per, (k) => Math.round((k * spread) / USERS));
      await runUsers('deep', web!, workers, openai, db, users);
    }
    if (PARTS.includes('burst')) {
      const users = await makeUsers(
        'burst',
        BURST_USERS,
        () => BURST_ITEMS,
        () => 0,
      );
      await runUsers('burst', web!, workers, openai, db, users);
    }
  } finally {
    await Promise.all(procs.map((p) => p.stop('SIGTERM')));
    await openai.close();
    await db.end();
  }
}
