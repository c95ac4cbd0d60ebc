import type PgBoss from 'pg-boss';
import { jobSql } from '../../db/client';
import { queues } from '~/queue/queues';
import { runFix } from '~/services/fixes/run.server';

// A one-click fix of a post: the service books its end once (a replay finds it no longer processing).
export async function handleResultFix(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  for (const job of jobs) await runFix(queues['result-fix'].payload.parse(job.data), jobSql);
}
