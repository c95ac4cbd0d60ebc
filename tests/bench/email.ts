// `npm run bench:email`: how fast the send-email queue drains into a real SMTP server (the test
// one of tests/support), and how long a password reset waits when it is queued behind a burst of
// sign-ups. Its own embedded cluster (or DATABASE_URL's cluster), a fresh database.
//   BENCH_EMAILS (default 500): the burst of set-password messages queued at once.
import crypto from 'node:crypto';
import { freshDatabase, startTestCluster } from '../support/database';
import { startSmtpServer } from '../support/smtp-server';

const COUNT = Number(process.env.BENCH_EMAILS ?? 500);

const cluster = await startTestCluster();
const smtp = await startSmtpServer();
process.env.DATABASE_URL = await freshDatabase(cluster.url, 'pf_bench_email');
process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.smtpPort}`;
process.env.LOG_LEVEL = 'silent';
process.env.NODE_ENV = 'test';
process.env.SESSION_SECRET ??= 'bench-session-secret-0123456789abcdef';
process.env.ENCRYPTION_KEY ??= Buffer.alloc(32, 9).toString('base64');

const { sql, closeSql } = await import('../../db/client');
const { enqueueMany, stopBoss } = await import('../../app/queue/boss');
const { queueEmail } = await import('../../app/services/mail.server');
const { startWorkers } = await import('../../jobs/worker');

const message = (i: number, template: 'set-password' | 'reset-password') => {
  const key = `${template}-${i}-${crypto.randomUUID()}`;
  const to = `bench-${i}@example.com`;
  return {
    messageKey: key,
    to,
    template,
    language: 'en' as const,
    params: { name: `Bench ${i}`, link: `http://localhost:3000/reset-password?token=${key}` },
  };
};

// The burst of sign-ups (one insert, as a batch import would), then one password reset through
// the same path a real request uses.
await enqueueMany(
  'send-email',
  Array.from({ length: COUNT }, (_, i) => ({ payload: message(i, 'set-password'), singletonKey: `bench-${i}` })),
);
const reset = message(COUNT, 'reset-password');
await queueEmail(reset, sql);

const start = performance.now();
await startWorkers();
let resetMs: number | undefined;
for (;;) {
  const [row] = await sql<{ n: number; reset: boolean }[]>`
    SELECT count(*) FILTER (WHERE sent_at IS NOT NULL)::int AS n,
           bool_or(message_key = ${reset.messageKey} AND sent_at IS NOT NULL) AS reset
    FROM email_outbox`;
  if (row!.reset && resetMs === undefined) resetMs = performance.now() - start;
  if (row!.n >= COUNT + 1) break;
  if (performance.now() - start > 600_000) throw new Error('timed out');
  await new Promise((r) => setTimeout(r, 20));
}
const seconds = (performance.now() - start) / 1000;
console.log(
  JSON.stringify({
    emails: COUNT + 1,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round(((COUNT + 1) / seconds) * 10) / 10,
    resetDeliveredAfterMs: Math.round(resetMs ?? NaN),
    smtpReceived: smtp.messages.length,
  }),
);
await stopBoss();
await closeSql();
await smtp.stop();
await cluster.stop();
process.exit(0);
