import type PgBoss from 'pg-boss';
import { jobSql } from '../../db/client';
import { queues } from '~/queue/queues';
import { deliverAttempt } from '~/services/webhooks.server';

// One attempt per job; a failed attempt books the next one itself (webhooks.server.ts), so the job
// completes either way. Only a crash (a thrown error) leaves it to pg-boss's retry.
export async function handleWebhookDeliver(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  await Promise.all(
    jobs.map((job) => {
      const { deliveryId, attempt } = queues['webhook-deliver'].payload.parse(job.data);
      return deliverAttempt(deliveryId, attempt, jobSql);
    }),
  );
}
