// `npm run bench:plans` (run `npm run build` first): the speed of plan-first runs through the
// compiled app (web + workers in one process) against the OpenAI test server, one user.
//   1. BENCH_PLANS topics (100) planned at GENERATION_CONCURRENCY=C (20) with the provider
//      answering in BENCH_PLAN_LATENCY_MS (1 s): wall time from POST /api/generate/text to the run's
//      `planned`, against the target of 6 s (about one latency per topic at C: ceil(100/20) × 1 s = 5 s).
//   2. The same posts written from their plans (6 sections each, no FAQ) with the provider at
//      BENCH_WRITE_LATENCY_MS (2 s): wall time from POST /api/jobs/{id}/write to `completed`, against
//      the ideal ceil(sections / C) × L = ceil(600/20) × 2 s = 60 s (within 10 %).
// The per-user cap is raised to 2 × C so that it is not what limits the provider's C.
// Its own embedded Postgres (or DATABASE_URL's cluster), a fresh database either way.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../db/client';
import { freePort } from '../../db/embedded';
import { freshDatabase, startTestCluster } from '../support/database';
import { startOpenAiServer } from '../support/openai-server';
import { createGenUser } from '../support/generation';

const PLANS = Number(process.env.BENCH_PLANS ?? 100);
const C = Number(process.env.BENCH_CONCURRENCY ?? 20);
const PLAN_LATENCY = Number(process.env.BENCH_PLAN_LATENCY_MS ?? 1000);
const WRITE_LATENCY = Number(process.env.BENCH_WRITE_LATENCY_MS ?? 2000);
const SECTIONS = 6; // the test server's default plan
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function main() {
  const cluster = await startTestCluster();
  const url = await freshDatabase(cluster.url, 'pf_bench_plans');
  process.env.DATABASE_URL = url;
  const db = connect(url, 4);
  const openai = await startOpenAiServer({ latencyMs: PLAN_LATENCY });
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'production' as const,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: url,
    SESSION_SECRET: 'bench-session-secret-0123456789',
    ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    OPENROUTER_BASE_URL: openai.url,
    OPENROUTER_API_KEY: 'sk-bench',
    GENERATION_CONCURRENCY: String(C),
    GENERATION_CONCURRENCY_PER_USER: String(2 * C),
    MAX_TOPICS_PER_RUN: String(Math.max(1000, PLANS)),
    LOG_LEVEL: 'warn',
  };
  if (!fs.existsSync(path.join(root, 'build/server/index.js'))) throw new Error('run `npm run build` first');
  const app = spawn(process.execPath, ['build/server/index.js'], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      app.once('exit', (code) => reject(new Error(`app exited (${code})`)));
      const poll = setInterval(async () => {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/`);
          if (r.status < 500) {
            clearInterval(poll);
            resolve();
          }
        } catch {
          /* not yet */
        }
      }, 200);
    });
    const user = await createGenUser(db, { credits: 2 * PLANS + C + 10, label: 'bench' });
    Object.assign(process.env, { SESSION_SECRET: env.SESSION_SECRET, ENCRYPTION_KEY: env.ENCRYPTION_KEY, APP_URL: env.APP_URL });
    const { createSession } = await import('../../app/services/sessions.server');
    const { getRunProgress } = await import('../../app/services/generation/progress.server');
    const { setCookie } = await createSession(user.id);
    const headers = { cookie: setCookie.split(';')[0]!, origin: env.APP_URL, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${port}`;
    const post = async (to: string, body: unknown) => {
      const res = await fetch(`${base}${to}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${to}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ jobId: string }>;
    };
    const until = async (runId: string, status: string) => {
      // Read from the database, not through the app: polling must not load the process measured.
      while ((await getRunProgress(user.id, runId, db)).status !== status) await new Promise((r) => setTimeout(r, 50));
    };
    const start = (n: number, label: string) =>
      post('/api/generate/text', {
        prompts: Array.from({ length: n }, (_, i) => `${label} topic ${i}`).join('\n'),
        model: 'openai/gpt-4o-mini-search-preview',
        planFirst: true,
        includeQA: false,
      });

    // Warm-up: one round of plans and writes (the provider client's pool, the first Remix requests).
    const warm = await start(C, 'warm');
    await until(warm.jobId, 'planned');
    await post(`/api/jobs/${warm.jobId}/write`, {});
    await until(warm.jobId, 'completed');

    let t0 = performance.now();
    const { jobId } = await start(PLANS, 'bench');
    await until(jobId, 'planned');
    const planWall = (performance.now() - t0) / 1000;
    console.log(
      `plans: ${PLANS} at C=${C}, L=${PLAN_LATENCY} ms: ${planWall.toFixed(2)} s (target ≤ 6 s; ideal ${Math.ceil(PLANS / C) * (PLAN_LATENCY / 1000)} s)`,
    );

    openai.setLatency(WRITE_LATENCY);
    const before = openai.requests.length;
    t0 = performance.now();
    await post(`/api/jobs/${jobId}/write`, {});
    await until(jobId, 'completed');
    const writeWall = (performance.now() - t0) / 1000;
    const ideal = Math.ceil((PLANS * SECTIONS) / C) * (WRITE_LATENCY / 1000);
    const progress = await getRunProgress(user.id, jobId, db);
    console.log(
      `writes: ${PLANS} posts × ${SECTIONS} sections at C=${C}, L=${WRITE_LATENCY} ms: ${writeWall.toFixed(2)} s ` +
        `(ideal ${ideal} s, ${((writeWall / ideal - 1) * 100).toFixed(1)} % over; ${openai.requests.length - before} section requests; ` +
        `peak in flight ${openai.maxInFlight()}; completed ${progress.completedPrompts}, failed ${progress.failedPrompts})`,
    );
  } finally {
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
    await db.end();
    await openai.close();
    await cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
