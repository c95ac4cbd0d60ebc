import crypto from 'node:crypto';
import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { WordPressServiceError } from './errors.server';
import { checkedPublicationId, getPublication } from './publications.server';
import { publicationColumns, toPublication, type Publication, type PublicationRow } from './publication-record.server';
import { cancelPublishJobs, queueScheduleMirror } from './publish-queue.server';

// What is waiting to be published: the list, and cancel, move or retry now of one waiting publication.

/** What is waiting (queued, soonest first) and what recently ended (failed or published). */
export async function listScheduled(userId: string, db: Db = sql): Promise<{ waiting: Publication[]; recent: Publication[] }> {
  const waiting = await db<PublicationRow[]>`
    SELECT ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND status = 'queued' ORDER BY publish_at, created_at LIMIT 500`;
  const recent = await db<PublicationRow[]>`
    SELECT ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND status IN ('published', 'failed') ORDER BY updated_at DESC LIMIT 50`;
  return { waiting: waiting.map(toPublication), recent: recent.map(toPublication) };
}

export async function cancelPublication(userId: string, id: string, db: Db = sql): Promise<Publication> {
  const { pub, jobId } = await transaction(db, async (tx) => {
    await getPublication(userId, id, tx);
    const [row] = await tx<(PublicationRow & { job_id: string | null })[]>`
      UPDATE wordpress_publications SET status = 'canceled', updated_at = now()
      WHERE user_id = ${userId} AND id = ${id} AND status = 'queued' RETURNING ${publicationColumns(tx)}, job_id`;
    if (!row) throw new WordPressServiceError('not_queued');
    // A post already on the site's schedule is trashed there.
    await queueScheduleMirror([id], tx);
    return { pub: toPublication(row), jobId: row.job_id };
  });
  if (jobId) await cancelPublishJobs([jobId]);
  return pub;
}

/** Moves a waiting publication to another time: a new job, the old one canceled. */
export async function reschedulePublication(userId: string, id: string, publishAt: Date, db: Db = sql): Promise<Publication> {
  const { pub, oldJob } = await transaction(db, async (tx) => {
    const [current] = await tx<{ job_id: string | null; status: string }[]>`
      SELECT job_id, status FROM wordpress_publications WHERE user_id = ${userId} AND id = ${checkedPublicationId(id)} FOR UPDATE`;
    if (!current) throw new WordPressServiceError('publication_not_found');
    if (current.status !== 'queued') throw new WordPressServiceError('not_queued');
    const jobId = crypto.randomUUID();
    const at = publishAt.getTime() > Date.now() ? publishAt : new Date();
    const [row] = await tx<PublicationRow[]>`
      UPDATE wordpress_publications SET publish_at = ${at}, job_id = ${jobId}, attempts = 0, last_error = NULL, updated_at = now()
      WHERE id = ${id} RETURNING ${publicationColumns(tx)}`;
    await enqueueMany(
      'wordpress-publish',
      [{ id: jobId, payload: { publicationId: id }, startAfter: at.getTime() > Date.now() ? at : undefined }],
      tx,
    );
    // Moved on the site's schedule too (or placed there, or left to the job when due soon).
    await queueScheduleMirror([id], tx);
    return { pub: toPublication(row!), oldJob: current.job_id };
  });
  if (oldJob) await cancelPublishJobs([oldJob]);
  return pub;
}

/**
 * "Retry now" for a publication waiting on its backoff after failures (the site was down): a new
 * job at once, the waiting one canceled. Only a waiting publication that has failed before.
 */
export async function retryPublicationNow(userId: string, id: string, db: Db = sql): Promise<Publication> {
  const { pub, oldJob } = await transaction(db, async (tx) => {
    const [current] = await tx<{ job_id: string | null; status: string; attempts: number }[]>`
      SELECT job_id, status, attempts FROM wordpress_publications WHERE user_id = ${userId} AND id = ${checkedPublicationId(id)} FOR UPDATE`;
    if (!current) throw new WordPressServiceError('publication_not_found');
    if (current.status !== 'queued' || current.attempts === 0) throw new WordPressServiceError('not_waiting');
    const jobId = crypto.randomUUID();
    const [row] = await tx<PublicationRow[]>`
      UPDATE wordpress_publications SET publish_at = LEAST(publish_at, now()), job_id = ${jobId}, updated_at = now()
      WHERE id = ${id} RETURNING ${publicationColumns(tx)}`;
    await enqueueMany('wordpress-publish', [{ id: jobId, payload: { publicationId: id } }], tx);
    return { pub: toPublication(row!), oldJob: current.job_id };
  });
  if (oldJob) await cancelPublishJobs([oldJob]);
  return pub;
}

/**
 * Posts still waiting to be published after `after` (a Pro period's end): cancelling Pro warns
 * that they will not be published then. Those already made on the site's schedule while Pro are not
 * among them: they go out at their time (publishing needs Pro when the post is made).
 */
export async function countScheduledAfter(userId: string, after: Date, db: Db = sql): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    SELECT count(*)::int AS n FROM wordpress_publications
    WHERE user_id = ${userId} AND status = 'queued' AND publish_at > ${after} AND wp_date IS NULL`;
  return row?.n ?? 0;
}
