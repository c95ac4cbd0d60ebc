// Part 3 of `npm run bench:generation` (BENCH_PART=workers runs only it): throughput against the
// number of worker processes. The same run, one user, through the compiled server as
// one ROLE=web process plus 1, then 2, ROLE=worker processes on one Postgres (a fresh database
// each), with the provider concurrency per process fixed: items/s side by side and their ratio.
// With the provider's latency, not our CPU, the limit, 2 workers reach about twice the items/s.
// BENCH_WORKERS_ITEMS (600), BENCH_WORKERS_LATENCY_MS (1000), BENCH_WORKERS_CONCURRENCY (20 per
// process) change the sizes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../db/client';
import { freshDatabase, type TestCluster } from '../support/database';
import { startOpenAiServer } from '../support/openai-server';
import { createGenUser, statusCounts, waitForRun } from '../support/generation';
import { signIn, startDeployment, startTextRun, type Role } from '../support/app-processes';

const ITEMS = Number(process.env.BENCH_WORKERS_ITEMS ?? 600);
const LATENCY = Number(process.env.BENCH_WORKERS_LATENCY_MS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_WORKERS_CONCURRENCY ?? 20);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Figures = { workers: number; wall: number; perSecond: number; ideal: number; maxInFlight: number };

async function once(cluster: TestCluster, workers: number): Promise<Figures> {
  const url = await freshDatabase(cluster.url, `pf_bench_workers_${workers}`);
  const db = connect(url, 2);
  const openai = await startOpenAiServer({ latencyMs: LATENCY });
  const roles: Role[] = ['web', ...Array.from({ length: workers }, () => 'worker' as const)];
  const procs = await startDeployment(roles, {
    databaseUrl: url,
    env: {
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'sk-bench',
      GENERATION_CONCURRENCY: String(CONCURRENCY),
      // One user: the per-user cap (items at the provider and next in line, across processes) must
      // not be what limits the workers' providers.
      GENERATION_CONCURRENCY_PER_USER: String(Math.min(500, 2 * 2 * CONCURRENCY)),
      MAX_TOPICS_PER_RUN: String(Math.max(1000, ITEMS)),
    },
  });
  try {
    const user = await createGenUser(db, { credits: ITEMS + workers * CONCURRENCY + 10, label: 'bench-workers' });
    const cookie = await signIn(db, user.id);
    const web = procs[0]!;
    // Warm every worker: a first round of items (the provider client's first use, its connections).
    const warm = await startTextRun(
      web,
      cookie,
      Array.from({ length: workers * CONCURRENCY }, (_, i) => `warm-up ${i}`),
    );
    await waitForRun(db, warm, 120_000);
    const t0 = performance.now();
    const run = await startTextRun(
      web,
      cookie,
      Array.from({ length: ITEMS }, (_, i) => `workers bench topic ${i}`),
    );
    await waitForRun(db, run, 600_000);
    const wall = (performance.now() - t0) / 1000;
    const counts = await statusCounts(db, run);
    if (counts.completed !== ITEMS) throw new Error(`run ended with ${JSON.stringify(counts)}`);
    return {
      workers,
      wall,
      perSecond: ITEMS / wall,
      ideal: (workers * CONCURRENCY * 1000) / LATENCY,
      maxInFlight: openai.maxInFlight(),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop('SIGTERM')));
    await openai.close();
    await db.end();
  }
}

export async function benchWorkers(cluster: TestCluster): Promise<void> {
  if (!fs.existsSync(path.join(root, 'build/server/index.js'))) throw new Error('run `npm run build` first');
  console.log(`\n3. Worker processes: ${ITEMS} text items, latency ${LATENCY} ms, GENERATION_CONCURRENCY ${CONCURRENCY} per process`);
  const rows: Figures[] = [];
  for (const workers of [1, 2]) rows.push(await once(cluster, workers));
  console.log('   workers   wall (s)   items/s   ideal items/s   provider max in flight');
  for (const r of rows)
    console.log(
      `   ${String(r.workers).padStart(7)}   ${r.wall.toFixed(2).padStart(8)}   ${r.perSecond.toFixed(1).padStart(7)}   ${r.ideal.toFixed(1).padStart(13)}   ${String(r.maxInFlight).padStart(22)}`,
    );
  console.log(`   2 workers / 1 worker: ${(rows[1]!.perSecond / rows[0]!.perSecond).toFixed(2)}× the items/s`);
}
