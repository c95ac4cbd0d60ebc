import type PgBoss from 'pg-boss';
import { runPublication, runPublicationLinkFixups } from '~/services/wordpress/publish-job.server';
import { mirrorSchedule } from '~/services/wordpress/schedule-mirror.server';
import { getBoss } from '~/queue/boss';
import { queues } from '~/queue/queues';
import { jobSql } from '../../db/client';

// Each job of a batch stands alone: a failing one is failed (and retried with backoff by pg-boss)
// without failing the others; its last attempt marks the publication failed with the site's message.
export async function handleWordPressPublish(jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const boss = await getBoss();
  await Promise.all(
    jobs.map(async (job) => {
      const meta = job as PgBoss.JobWithMetadata<unknown>;
      const payload = queues['wordpress-publish'].payload.parse(job.data);
      const final = typeof meta.retryCount === 'number' && typeof meta.retryLimit === 'number' && meta.retryCount >= meta.retryLimit;
      try {
        if ('linkFixups' in payload) await runPublicationLinkFixups(payload.linkFixups, { final }, jobSql);
        else if ('mirror' in payload) await mirrorSchedule(payload.mirror, {}, jobSql);
        else await runPublication(payload.publicationId, { jobId: job.id, final }, jobSql);
      } catch (error) {
        await boss.fail('wordpress-publish', job.id, { message: error instanceof Error ? error.message : String(error) });
      }
    }),
  );
}
