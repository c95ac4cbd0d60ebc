// `npm run bench:startup`: start-up time (process start to the first `/readyz` 200) and idle RSS
// (VmRSS 3 s after ready) of the production entry points, against a fresh, migrated database on
// one Postgres (its own embedded cluster, or DATABASE_URL's cluster). Run `npm run build` first.
//   - "tsx": node --import tsx server.ts (how production ran before the compiled build)
//   - "compiled": node build/server/index.js (npm start and the Docker image)
// BENCH_RUNS (default 3) runs each; the median is reported.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../db/embedded';
import { freshDatabase, startTestCluster } from '../support/database';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const variants: Record<string, string[]> = {
  tsx: ['--max-semi-space-size=4', '--import', 'tsx', 'server.ts'],
  compiled: ['--max-semi-space-size=4', 'build/server/index.js'],
};

const cluster = await startTestCluster();
const url = await freshDatabase(cluster.url, 'pf_bench_startup');

async function once(args: string[]): Promise<{ readyMs: number; rssMb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: url,
      SESSION_SECRET: 'bench-startup-session-secret-0123456789',
      ENCRYPTION_KEY: Buffer.alloc(32, 4).toString('base64'),
      LOG_LEVEL: 'warn',
    },
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
      if (performance.now() - started > 60_000) throw new Error('not ready after 60 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    const readyMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 3000));
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    return { readyMs, rssMb };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const names = Object.keys(variants).filter((name) => {
  if (name !== 'compiled' || fs.existsSync(path.join(root, 'build/server/index.js'))) return true;
  console.log(JSON.stringify({ variant: name, skipped: 'no build/server/index.js (run npm run build)' }));
  return false;
});
// Alternating runs, so that load from elsewhere on the machine falls on every variant alike.
const results = new Map(names.map((name) => [name, [] as { readyMs: number; rssMb: number }[]]));
for (let i = 0; i < RUNS; i++) for (const name of names) results.get(name)!.push(await once(variants[name]!));
for (const [name, runs] of results) {
  console.log(
    JSON.stringify({
      variant: name,
      startupMs: Math.round(median(runs.map((r) => r.readyMs))),
      idleRssMb: Math.round(median(runs.map((r) => r.rssMb)) * 10) / 10,
      runs: runs.map((r) => `${Math.round(r.readyMs)} ms / ${r.rssMb.toFixed(1)} MB`),
    }),
  );
}
await cluster.stop();
