import crypto from 'node:crypto';
import type { Db } from '../../../db/client';
import { enqueueMany, getBoss } from '~/queue/boss';

// The `wordpress-publish` queue's jobs seen from the services that end or move a publication (or
// remove its site): the waiting job is canceled once the row says so.

export async function cancelPublishJobs(ids: string[]) {
  if (!ids.length) return;
  const boss = await getBoss();
  // The handler also checks the row, so a job that was already running stops at its first look.
  await boss.cancel('wordpress-publish', ids).catch(() => undefined);
}

/**
 * Keeps these publications' posts in WordPress's own schedule in step with ours (made there as
 * `future`, moved, taken off, trashed: schedule-mirror.server.ts), in the caller's transaction.
 */
export async function queueScheduleMirror(ids: string[], db: Db) {
  await enqueueMany(
    'wordpress-publish',
    ids.map((id) => ({ id: crypto.randomUUID(), payload: { mirror: id } })),
    db,
  );
}
