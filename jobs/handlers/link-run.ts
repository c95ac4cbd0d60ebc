import type PgBoss from 'pg-boss';
import { jobSql } from '../../db/client';
import { queues } from '~/queue/queues';
import { linkFinishedRun } from '~/services/internal-links.server';

// A finished text run's internal links: the service decides whether it still needs
// linking (a replay finds it linked) and reads the site's posts first when they never were.
export async function handleLinkRun(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  for (const job of jobs) {
    const { userId, runId } = queues['link-run'].payload.parse(job.data);
    await linkFinishedRun(userId, runId, jobSql);
  }
}
