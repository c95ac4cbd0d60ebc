import type PgBoss from 'pg-boss';
import { requestPasswordReset } from '~/services/auth.server';
import { queues } from '~/queue/queues';
import { jobSql } from '../../db/client';

/** Issues the token and queues the reset e-mail when the address has an account; nothing otherwise. */
export async function handlePasswordResetRequest(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  for (const job of jobs) await requestPasswordReset(queues['password-reset-request'].payload.parse(job.data), jobSql);
}
