// `npm run bench:csv` (after `npm run build`: it runs the compiled server, as `npm start` does): how
// much CSV uploads hold up a web process's event loop, seen from outside as the answer time of
// `/healthz` (answered at once by the loop, so its latency is how long the loop was busy elsewhere).
// One process, its own embedded cluster (or DATABASE_URL's cluster) and a fresh database.
//   1. baseline: /healthz asked one request after another for BENCH_SECONDS (default 5), nothing else;
//   2. uploads: BENCH_ROUNDS (default 3) rounds of three ~1 MB pathological files at once (a million
//      commas, half a million cells, one quoted field of a million characters), /healthz asked the
//      same way until the round's three answers are in.
// It prints each phase's /healthz latencies and the ratio of the upload phase's max (and p99) to
// the baseline's, measured in the same run. Figures only: nothing here passes or fails.
import crypto from 'node:crypto';
import { CSV_MAX_BYTES } from '../../app/catalogue';
import { connect } from '../../db/client';
import { freshDatabase, startTestCluster } from '../support/database';
import { signIn, startAppProcess } from '../support/app-processes';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const files = {
  commas: 'topic\n' + ','.repeat(CSV_MAX_BYTES - 6),
  cells: 'topic\n' + 'a,'.repeat((CSV_MAX_BYTES - 6) / 2),
  quoted: 'topic\n"' + 'x""'.repeat(Math.floor((CSV_MAX_BYTES - 9) / 3)) + '"\n',
};

const cluster = await startTestCluster();
const url = await freshDatabase(cluster.url, 'pf_bench_csv');
const db = connect(url, 1);
const [user] = await db<{ id: string }[]>`
  INSERT INTO users (email, name) VALUES (${`bench-csv-${crypto.randomUUID()}@example.com`}, 'Bench') RETURNING id`;
const cookie = await signIn(db, user!.id);
await db.end();
// The upload limits are raised: the bench sends more files than a user may.
const web = await startAppProcess('web', { databaseUrl: url, env: { RATE_LIMIT_MULTIPLIER: '1000' } });

type Stats = { probes: number; p50: number; p99: number; max: number };
const round1 = (ms: number) => Math.round(ms * 10) / 10;
function stats(latencies: number[]): Stats {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { probes: sorted.length, p50: round1(at(0.5)), p99: round1(at(0.99)), max: round1(sorted.at(-1) ?? 0) };
}

/** Asks /healthz one request after another until `until` resolves: each answer's time in ms. */
async function probeUntil(until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const start = performance.now();
    const res = await fetch(`${web.url}/healthz`);
    await res.text();
    latencies.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
  }
  return latencies;
}

/** A file as a multipart body, encoded once: the probes share this process, so sending must cost it little. */
async function multipart(name: string, text: string): Promise<{ name: string; body: Buffer; type: string }> {
  const form = new FormData();
  form.set('file', new Blob([text], { type: 'text/csv' }), `${name}.csv`);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { name, body: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type')! };
}
const bodies = await Promise.all(Object.entries(files).map(([name, text]) => multipart(name, text)));

async function upload({ name, body, type }: (typeof bodies)[number]): Promise<{ name: string; status: number; ms: number }> {
  const start = performance.now();
  const res = await fetch(`${web.url}/api/upload-csv`, {
    method: 'POST',
    headers: { cookie, origin: web.url, 'content-type': type },
    body,
  });
  await res.arrayBuffer();
  return { name, status: res.status, ms: Math.round(performance.now() - start) };
}

const uploadRound = () => Promise.all(bodies.map(upload));

try {
  await web.ready();
  // Warm-up: the first round starts whatever the server starts lazily (parse threads, JIT).
  await uploadRound();

  const baseline = stats(await probeUntil(new Promise((r) => setTimeout(r, SECONDS * 1000))));
  console.log(JSON.stringify({ phase: 'baseline', seconds: SECONDS, healthzMs: baseline }));

  const during: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const uploads = uploadRound();
    const latencies = await probeUntil(uploads);
    during.push(...latencies);
    console.log(JSON.stringify({ phase: 'uploads', round, uploads: await uploads, healthzMs: stats(latencies) }));
  }
  const loaded = stats(during);
  console.log(
    JSON.stringify({
      summary: 'healthz under three 1 MB uploads at once, against the baseline',
      baseline,
      uploads: loaded,
      maxRatio: Math.round((loaded.max / baseline.max) * 10) / 10,
      p99Ratio: Math.round((loaded.p99 / baseline.p99) * 10) / 10,
    }),
  );
} finally {
  await web.stop();
  await cluster.stop();
}
