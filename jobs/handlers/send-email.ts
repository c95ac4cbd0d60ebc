import type PgBoss from 'pg-boss';
import { deliverEmail, EMAIL_CONCURRENCY } from '~/services/mail.server';
import { getBoss } from '~/queue/boss';
import { queues } from '~/queue/queues';
import { jobSql } from '../../db/client';

/**
 * Sends a fetched batch EMAIL_CONCURRENCY at a time. A message that fails is failed on its own (its
 * job retries); the others complete — pg-boss completes only the jobs still active when this returns.
 */
export async function handleSendEmail(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const pending = [...jobs];
  const lane = async () => {
    for (let job = pending.shift(); job; job = pending.shift()) {
      try {
        await deliverEmail(queues['send-email'].payload.parse(job.data), {}, jobSql);
      } catch (err) {
        const boss = await getBoss();
        await boss.fail('send-email', job.id, { message: (err as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(EMAIL_CONCURRENCY, jobs.length) }, lane));
}
