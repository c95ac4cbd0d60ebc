/**
 * Webhook intake benchmark: `npm run bench:webhooks` (after `npx remix build`).
 *
 * The production app (createApp from server.ts, NODE_ENV=production, pg-boss in web mode) runs in a
 * CHILD process on a fresh database. This process signs BENCH_EVENTS distinct Stripe events exactly
 * as Stripe does and posts them to /webhooks/stripe with BENCH_CONCURRENCY requests in flight, then
 * checks that every one was answered 200 AND is in the inbox (billing_events) with its job: an
 * event is stored before its 200, so none may be missing. Target: ≥ 500 events/s.
 */
import crypto from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECRET = 'whsec_bench_0123456789abcdef';
const TARGET = 500;

async function serve() {
  const { createApp, loadBuild } = await import('../../server');
  const { loadEnv } = await import('../../app/runtime/env.server');
  const { getLogger } = await import('../../app/runtime/logger.server');
  const { getSql } = await import('../../db/client');
  const { migrate } = await import('../../db/migrate');
  const { startBoss } = await import('../../app/queue/boss');
  const env = loadEnv();
  await migrate(getSql());
  await startBoss('web');
  const app = createApp({
    env,
    db: { sql: getSql(), embedded: false, close: async () => {} },
    build: await loadBuild(),
    logger: getLogger(),
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}

/** CPU time (user + system) a process has used, in ms. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function signedEvent(i: number, run: string) {
  const event = {
    id: `evt_bench_${run}_${i}`,
    object: 'event',
    type: i % 2 ? 'invoice.paid' : 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    api_version: '2026-10-28.endive',
    livemode: false,
    data: {
      object: {
        id: `in_bench_${run}_${i}`,
        object: i % 2 ? 'invoice' : 'checkout.session',
        customer: `cus_bench_${i % 97}`,
        status: 'paid',
      },
    },
  };
  const payload = JSON.stringify(event, null, 2);
  const t = Math.floor(Date.now() / 1000);
  const v1 = crypto.createHmac('sha256', SECRET).update(`${t}.${payload}`).digest('hex');
  return { id: event.id, payload, signature: `t=${t},v1=${v1}` };
}

async function main() {
  const { startTestCluster, freshDatabase } = await import('../support/database');
  const cluster = await startTestCluster();
  const databaseUrl = await freshDatabase(cluster.url, 'pf_bench_webhooks');
  const child: ChildProcess = fork(SELF, ['--serve'], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF_DIR}`] : [])],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      APP_URL: 'http://127.0.0.1:1',
      SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
      ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
      STRIPE_WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      ROLE: 'web',
    },
  });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number }));
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port}/webhooks/stripe`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (e: { payload: string; signature: string }) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'stripe-signature': e.signature, 'content-length': Buffer.byteLength(e.payload) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(e.payload);
    });

  const run = crypto.randomBytes(3).toString('hex');
  // Warm-up (JIT, pools), not counted.
  const warm = Array.from({ length: 300 }, (_, i) => signedEvent(i, `${run}w`));
  await Promise.all(warm.map(post));

  const events = Array.from({ length: EVENTS }, (_, i) => signedEvent(i, run));
  const cpuBefore = cpuMs(child.pid!);
  const statuses: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events.length) {
        const e = events[next++]!;
        statuses.push(await post(e));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rate = EVENTS / seconds;
  const serverCpuPerEvent = (cpuMs(child.pid!) - cpuBefore) / EVENTS;

  const { connect } = await import('../../db/client');
  const db = connect(databaseUrl, 2);
  const [{ stored }] = (await db<
    { stored: number }[]
  >`SELECT count(*)::int AS stored FROM billing_events WHERE starts_with(id, ${`evt_bench_${run}_`})`) as unknown as [{ stored: number }];
  const [{ jobs }] = (await db<
    { jobs: number }[]
  >`SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = 'stripe-event' AND starts_with(data->>'eventId', ${`evt_bench_${run}_`})`) as unknown as [
    { jobs: number },
  ];
  // A repeat of an already stored event is answered 200 and stored nothing new.
  const repeat = await post(events[0]!);
  await db.end();
  agent.destroy();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.disconnect();
  const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
  await cluster.stop();

  const ok = statuses.filter((s) => s === 200).length;
  console.log(
    `webhook intake: ${EVENTS} events, ${CONCURRENCY} in flight, ${seconds.toFixed(2)} s → ${Math.round(rate)} events/s (target ≥ ${TARGET})`,
  );
  console.log(
    `server CPU: ${serverCpuPerEvent.toFixed(2)} ms per event → one core of this machine takes ${Math.round(1000 / serverCpuPerEvent)} events/s (load average now ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`,
  );
  console.log(
    `answered 200: ${ok}/${EVENTS}; stored in the inbox: ${stored}/${EVENTS}; jobs enqueued: ${jobs}/${EVENTS}; repeat answered ${repeat}`,
  );
  const lost = EVENTS - stored;
  if (ok !== EVENTS || lost !== 0 || jobs !== EVENTS || repeat !== 200) {
    console.error(`FAIL: ${EVENTS - ok} not 200, ${lost} lost, ${EVENTS - jobs} without a job`);
    process.exit(1);
  }
  if (rate < TARGET) {
    console.error(`FAIL: ${Math.round(rate)} events/s is below ${TARGET}`);
    process.exit(1);
  }
  console.log('OK');
}

if (process.argv.includes('--serve')) await serve();
else await main();
