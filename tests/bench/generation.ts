// `npm run bench:generation` (run `npm run build` first): the speed figures of bulk generation.
//   1. 1,000 text items through the real app process (web + workers, the compiled server that
//      `npm start` and the image run; `server.ts` under tsx when there is no build) against the
//      OpenAI test server at 2 s latency with GENERATION_CONCURRENCY=50 (one user, so the per-user
//      cap, which counts the items a worker holds at the provider AND next in line, is raised to
//      2 × 50: it must not be what limits the provider's 50): wall time from POST /api/generate/text to the job's `completed`,
//      against the ideal ceil(1000/50) × 2 s = 40 s; the app's CPU per item and its peak RSS.
//   2. GET /api/results p50/p99 for a user with 100,000 results: first page, a deep page, a type
//      filter, a rare and a common search term.
//   3. The same run with 1 and 2 worker processes side by side (generation-workers.ts).
//   4. A deep queue shared by 100 users (100,000 items), then 10 users × 1,000 at once, on 2 worker
//      processes: fairness, total time against the ideal, the claim's percentiles, the database's
//      size and dead tuples (generation-fairness.ts; the longest part: ~35 min at its defaults).
// BENCH_NODE_ARGS: the app's Node flags (default npm start's).
// BENCH_STATEMENTS=1 counts part 1's statements (statement-counter.ts): per item, by text.
// Its own embedded Postgres (or DATABASE_URL's cluster), a fresh database either way.
// BENCH_ITEMS, BENCH_LATENCY_MS, BENCH_CONCURRENCY, BENCH_RESULTS change the sizes; BENCH_PART=generation,
// BENCH_PART=results, BENCH_PART=workers or BENCH_PART=queue runs only that part. BENCH_WORDS=1500 has
// the provider answer made-up articles of that many words (default: a short one); QUALITY_REPORTS_OFF=true
// is passed to the app, so runs with and without the quality report can be compared.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../db/client';
import { freePort } from '../../db/embedded';
import { freshDatabase, startTestCluster } from '../support/database';
import { startOpenAiServer } from '../support/openai-server';
import { createGenUser } from '../support/generation';
import { madeUpArticle, seoBlock } from '../support/quality-articles';
import { benchWorkers } from './generation-workers';
import { benchQueue } from './generation-fairness';
import { startStatementCounter, type StatementCounter } from './statement-counter';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
const LATENCY = Number(process.env.BENCH_LATENCY_MS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const RESULTS = Number(process.env.BENCH_RESULTS ?? 100_000);
const PART = process.env.BENCH_PART ?? 'all';
const WORDS = Number(process.env.BENCH_WORDS ?? 0);
// The app's Node flags: npm start's and the image's (BENCH_NODE_ARGS to compare others; before
// they were raised to a 16 MB young generation this bench ran `--max-semi-space-size=4`).
const NODE_ARGS = process.env.BENCH_NODE_ARGS ?? '--max-semi-space-size=16 --heap-growing-percent=100';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const ticks = 100; // USER_HZ
function cpuSeconds(pid: number): number {
  const [user, system] = cpuSplit(pid);
  return user + system;
}
/** utime and stime (the kernel's share: mostly socket writes, which on loopback include the receiver's work). */
function cpuSplit(pid: number): [number, number] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) / ticks, Number(fields[12]) / ticks];
}
function peakRssMb(pid: number): number {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main() {
  const cluster = await startTestCluster();
  const url = await freshDatabase(cluster.url, 'pf_bench_gen');
  process.env.DATABASE_URL = url;
  const db = connect(url, 4);
  let seed = 0;
  const openai = await startOpenAiServer({
    latencyMs: LATENCY,
    ...(WORDS > 0 ? { article: (topic: string) => madeUpArticle(topic, { seed: ++seed, words: WORDS }) + seoBlock(topic) } : {}),
  });
  // BENCH_STATEMENTS=1: the app reaches Postgres through a relay that counts its statements.
  const counter: StatementCounter | null = process.env.BENCH_STATEMENTS ? await startStatementCounter(url) : null;
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'production' as const,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: counter?.url ?? url,
    SESSION_SECRET: 'bench-session-secret-0123456789',
    ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    OPENROUTER_BASE_URL: openai.url,
    OPENROUTER_API_KEY: 'sk-bench',
    GENERATION_CONCURRENCY: String(CONCURRENCY),
    GENERATION_CONCURRENCY_PER_USER: String(2 * CONCURRENCY),
    MAX_TOPICS_PER_RUN: String(Math.max(1000, ITEMS)),
    LOG_LEVEL: 'warn',
  };
  const compiled = fs.existsSync(path.join(root, 'build/server/index.js'));
  if (!compiled) console.log('(no build/server/index.js: running server.ts under tsx; `npm run build` for the production server)');
  const app = spawn(
    process.execPath,
    [
      ...NODE_ARGS.split(' ').filter(Boolean),
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ...(compiled ? ['build/server/index.js'] : ['--import', 'tsx', 'server.ts']),
    ],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    app.once('exit', (code) => reject(new Error(`app exited (${code})`)));
    const poll = setInterval(async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/`);
        if (r.ok || r.status < 500) {
          clearInterval(poll);
          resolve();
        }
      } catch {
        /* not yet */
      }
    }, 200);
  });

  try {
    // A signed-in user with enough credits.
    const user = await createGenUser(db, { credits: ITEMS + CONCURRENCY + 10, label: 'bench' });
    process.env.SESSION_SECRET = env.SESSION_SECRET;
    process.env.ENCRYPTION_KEY = env.ENCRYPTION_KEY;
    process.env.NODE_ENV = 'production';
    process.env.APP_URL = env.APP_URL;
    const { createSession } = await import('../../app/services/sessions.server');
    const { getRunProgress } = await import('../../app/services/generation/progress.server');
    const { setCookie } = await createSession(user.id);
    const cookie = setCookie.split(';')[0]!;
    const headers = { cookie, origin: env.APP_URL, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${port}`;

    // Warm the app: the first Remix request, and one round of generation (the provider client's
    // first use and its pool of connections), as in a server that has been running.
    await fetch(`${base}/api/results`, { headers });
    if (PART !== 'results') {
      const warm = await fetch(`${base}/api/generate/text`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          prompts: Array.from({ length: CONCURRENCY }, (_, i) => `warm-up topic ${i}`).join('\n'),
          model: 'openai/gpt-4o-mini-search-preview',
        }),
      });
      if (!warm.ok) throw new Error(`warm-up failed: ${warm.status} ${await warm.text()}`);
      const { jobId: warmId } = (await warm.json()) as { jobId: string };
      while ((await getRunProgress(user.id, warmId, db)).status !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    const warmRequests = openai.requests.length;

    if (PART !== 'results') {
      counter?.reset();
      const cpu0 = cpuSeconds(app.pid!);
      const split0 = cpuSplit(app.pid!);
      const t0 = performance.now();
      const t0Wall = Date.now();
      const res = await fetch(`${base}/api/generate/text`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          prompts: Array.from({ length: ITEMS }, (_, i) => `bench topic ${i}`).join('\n'),
          model: 'openai/gpt-4o-mini-search-preview',
        }),
      });
      if (!res.ok) throw new Error(`start failed: ${res.status} ${await res.text()}`);
      const startMs = performance.now() - t0;
      const { jobId } = (await res.json()) as { jobId: string };
      let job: { status: string; completedPrompts: number; failedPrompts: number } = {
        status: 'processing',
        completedPrompts: 0,
        failedPrompts: 0,
      };
      while (job.status !== 'completed') {
        // Read from the database, not through the app: polling must not load the process measured.
        await new Promise((r) => setTimeout(r, 50));
        job = await getRunProgress(user.id, jobId, db);
      }
      const wall = (performance.now() - t0) / 1000;
      const tEnd = Date.now();
      const cpu = cpuSeconds(app.pid!) - cpu0;
      const split = cpuSplit(app.pid!).map((x, i) => x - split0[i]!);
      const ideal = Math.ceil(ITEMS / CONCURRENCY) * (LATENCY / 1000);
      const shape = `${WORDS > 0 ? `${WORDS}-word articles` : 'short articles'}, quality reports ${process.env.QUALITY_REPORTS_OFF === 'true' ? 'off' : 'on'}`;
      console.log(`\n1. ${ITEMS} text items, latency ${LATENCY} ms, concurrency ${CONCURRENCY} (${shape}; node ${NODE_ARGS})`);
      console.log(
        `   completed ${job.completedPrompts}, failed ${job.failedPrompts}; POST /api/generate/text answered in ${startMs.toFixed(0)} ms`,
      );
      console.log(
        `   wall ${wall.toFixed(2)} s vs ideal ${ideal.toFixed(0)} s (${((wall / ideal - 1) * 100).toFixed(1)} % over); provider max in flight ${openai.maxInFlight()}`,
      );
      // Where the time beyond the ideal goes: before the first request, between an answer and the
      // slot's next request (average requests in flight), after the last answer.
      const ats = openai.requests
        .slice(warmRequests)
        .map((r) => r.at)
        .sort((a, b) => a - b);
      const firstAt = ats[0]!;
      const lastAnswer = ats[ats.length - 1]! + LATENCY;
      console.log(
        `   first provider request after ${firstAt - t0Wall} ms; ${((ats.length * LATENCY) / (lastAnswer - firstAt)).toFixed(1)} requests in flight on average; job seen completed ${tEnd - lastAnswer} ms after the last answer`,
      );
      // Slot turnaround: the k-th answer frees the slot that the (k + concurrency)-th request takes.
      const gaps = ats.slice(CONCURRENCY).map((at, k) => at - (ats[k]! + LATENCY));
      if (gaps.length > 0)
        console.log(
          `   answer → the slot's next request at the provider: p50 ${pct(gaps, 50)} ms, p90 ${pct(gaps, 90)} ms, max ${pct(gaps, 100)} ms`,
        );
      console.log(
        `   app CPU ${cpu.toFixed(2)} s = ${((cpu / ITEMS) * 1000).toFixed(2)} ms per item (user ${((split[0]! / ITEMS) * 1000).toFixed(2)}, system ${((split[1]! / ITEMS) * 1000).toFixed(2)}); app peak RSS ${peakRssMb(app.pid!).toFixed(0)} MB; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
      );
      if (counter) {
        // Statements the app ran during the run (web and jobs pools, pg-boss's own), per item.
        console.log(`   statements: ${(counter.total() / ITEMS).toFixed(2)} per item; the most frequent, per item:`);
        for (const [text, n] of [...counter.counts()].sort((a, b) => b[1] - a[1]).slice(0, 25))
          console.log(`   ${(n / ITEMS).toFixed(3).padStart(8)}  ${text}`);
      }
    }
    if (PART === 'generation') return;

    // 2. /api/results with RESULTS rows for one user.
    const reader = await createGenUser(db, { credits: 0, label: 'reader' });
    const t1 = performance.now();
    const [run] = await db<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${reader.id}, 'text', 'openai/gpt-4o-mini-search-preview', ${RESULTS}) RETURNING id`;
    const words = ['garden', 'winter', 'recipe', 'travel', 'budget', 'fitness', 'coffee', 'python', 'marketing', 'sleep'];
    // Bulk load: the trigram index is rebuilt once afterwards (as a restore would), not row by row.
    await db`DROP INDEX generation_results_search_idx`;
    await db.unsafe(`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, metadata, search_text, created_at)
      SELECT '${reader.id}', '${run!.id}', i, CASE WHEN i % 10 = 0 THEN 'image' ELSE 'text' END,
        'topic ' || i || ' about ' || (ARRAY['${words.join("','")}'])[1 + i % 10],
        'Title ' || i || ' ' || (ARRAY['${words.join("','")}'])[1 + i % 10],
        '<h2>Section</h2><p>' || repeat('Some useful sentence about the subject number ' || i || '. ', 20) || '</p>',
        'completed', 'openai/gpt-4o-mini-search-preview', 1, '{"characterCount": 1000, "wordCount": 180}'::jsonb,
        'Title ' || i || ' ' || (ARRAY['${words.join("','")}'])[1 + i % 10] || ' topic ' || i || ' ' || repeat('Some useful sentence about the subject number ' || i || '. ', 20),
        now() - make_interval(secs => ${RESULTS} - i)
      FROM generate_series(1, ${RESULTS}) AS i`);
    await db`CREATE INDEX generation_results_search_idx ON generation_results USING gin (search_text gin_trgm_ops)`;
    // As autovacuum does after a bulk insert: statistics and the visibility map (index-only scans).
    await db`VACUUM ANALYZE generation_results`;
    console.log(`\n2. GET /api/results with ${RESULTS} results (seeded in ${((performance.now() - t1) / 1000).toFixed(1)} s)`);
    const { createSession: cs } = await import('../../app/services/sessions.server');
    const rc = (await cs(reader.id)).setCookie.split(';')[0]!;
    const queries = [
      'page=1&limit=20',
      `page=${Math.floor(RESULTS / 40)}&limit=20`,
      'page=1&limit=20&type=image',
      'page=1&limit=20&search=number%2012345.',
      'page=1&limit=20&search=garden',
      'page=3&limit=20&type=text&search=coffee',
    ];
    const all: number[] = [];
    for (const q of queries) {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) await fetch(`${base}/api/results?${q}`, { headers: { cookie: rc } }); // warm
      for (let i = 0; i < 60; i++) {
        const t = performance.now();
        const r = await fetch(`${base}/api/results?${q}`, { headers: { cookie: rc } });
        if (!r.ok) throw new Error(`results ${q}: ${r.status}`);
        await r.arrayBuffer();
        times.push(performance.now() - t);
      }
      all.push(...times);
      console.log(`   ?${q.padEnd(42)} p50 ${pct(times, 50).toFixed(1)} ms  p99 ${pct(times, 99).toFixed(1)} ms`);
    }
    console.log(`   all queries: p50 ${pct(all, 50).toFixed(1)} ms, p99 ${pct(all, 99).toFixed(1)} ms`);
  } finally {
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
    await openai.close();
    await counter?.close();
    await db.end();
    const { closeSql } = await import('../../db/client');
    await closeSql();
    await cluster.stop();
  }
}

// Part 1 points DATABASE_URL at its own (stopped) cluster; part 3 starts a new one unless an
// operator gave DATABASE_URL, so the value from before part 1 is put back first.
const givenDatabaseUrl = process.env.DATABASE_URL;
// Interrupted, the bench still exits through 'exit', which stops the app copies it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
if (PART !== 'workers' && PART !== 'queue') await main();
if (givenDatabaseUrl === undefined) delete process.env.DATABASE_URL;
else process.env.DATABASE_URL = givenDatabaseUrl;
if (PART === 'all' || PART === 'workers') {
  const cluster = await startTestCluster();
  try {
    await benchWorkers(cluster);
  } finally {
    await cluster.stop();
  }
}
if (PART === 'all' || PART === 'queue') {
  const cluster = await startTestCluster();
  try {
    await benchQueue(cluster);
  } finally {
    await cluster.stop();
  }
}
process.exit(0);
