import type PgBoss from 'pg-boss';
import { deliverEmail } from '~/services/mail.server';
import { queues } from '../queues';

export async function handleSendEmail(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  for (const job of jobs) {
    await deliverEmail(queues['send-email'].payload.parse(job.data));
  }
}
