import type PgBoss from 'pg-boss';
import { getBoss } from '../../app/queue/boss';
import { queues } from '../../app/queue/queues';
import { handleWordPressPublish } from '../../jobs/handlers/wordpress-publish';

/**
 * A work() loop of the publish queue in this test process, as the app's worker runs it, woken every
 * 0.1 s: an idle loop looks for jobs only every 0.5 s (pg-boss's shortest interval), and each
 * publication a test queues and waits for would sit there that long. A busy worker takes a job at
 * once; this one does too. The waking ends with the test file's process.
 */
export async function startPublishWorker(options: Partial<PgBoss.WorkOptions> = {}): Promise<void> {
  const boss = await getBoss();
  const id = await boss.work(
    'wordpress-publish',
    { ...queues['wordpress-publish'].work, pollingIntervalSeconds: 0.5, ...options },
    handleWordPressPublish as (jobs: PgBoss.Job<object>[]) => Promise<void>,
  );
  setInterval(() => boss.notifyWorker(id), 100).unref();
}
