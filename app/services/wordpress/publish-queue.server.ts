import { getBoss } from '~/queue/boss';

// The `wordpress-publish` queue's jobs seen from the services that end or move a publication (or
// remove its site): the waiting job is canceled once the row says so.

export async function cancelPublishJobs(ids: string[]) {
  if (!ids.length) return;
  const boss = await getBoss();
  // The handler also checks the row, so a job that was already running stops at its first look.
  await boss.cancel('wordpress-publish', ids).catch(() => undefined);
}
