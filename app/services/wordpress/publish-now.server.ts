import { sql, transaction, type Db } from '../../../db/client';
import { env } from '~/runtime/env.server';
import { publicationFinished } from '../webhooks.server';
import { getPublication, queuePublish, type PublishInput } from './publications.server';
import type { Publication } from './publication-record.server';
import { cancelPublishJobs } from './publish-queue.server';
import { reviewHold } from './review-gate.server';
import type { QualityReport } from '~/utils/quality/report';

// Publish now: the publication is queued like any other, and the request waits a while for the
// job (whichever process runs it) to say how it went.

/**
 * True when an attempt made since `attemptsBefore` failed with an answer from the site (refused, not
 * resolved, an error status...) rather than by being slow: there is nothing to wait for. A timeout
 * is slow (the post may even exist: its retry finds it), and a failure without a code is ours (a
 * lost database, say), never the site's: both keep their retries.
 */
function failedBySite(pub: Publication, attemptsBefore: number): boolean {
  return pub.status === 'queued' && pub.attempts > attemptsBefore && pub.lastErrorCode !== null && pub.lastErrorCode !== 'timeout';
}

/**
 * The publication once it has ended (published, failed or canceled) or an attempt the site failed,
 * or as it is when `timeoutMs` ran out. Bounded polling of its row: whichever process's worker runs
 * the job, the row says.
 */
export async function waitForPublication(userId: string, id: string, timeoutMs: number, attemptsBefore = 0): Promise<Publication> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 500)) {
    const pub = await getPublication(userId, id);
    const left = deadline - Date.now();
    if (pub.status !== 'queued' || failedBySite(pub, attemptsBefore) || left <= 0) return pub;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}

/**
 * Ends a publication failed with the error of the attempt `seen` holds: the waiting user is told it
 * failed, so no retry may post it later behind their back (they publish again when the site is
 * fixed). Only if no attempt ended since (`attempts` unchanged); its waiting retry is canceled. The
 * retry's backoff (30 s at least) is far longer than the wait's polling pause, so it has not begun.
 */
async function endFailed(userId: string, seen: Publication, db: Db = sql): Promise<Publication> {
  const jobId = await transaction(db, async (tx) => {
    const [row] = await tx<{ resultId: string | null; jobId: string | null }[]>`
      UPDATE wordpress_publications SET status = 'failed', updated_at = now()
      WHERE user_id = ${userId} AND id = ${seen.id} AND status = 'queued' AND attempts = ${seen.attempts}
      RETURNING result_id AS "resultId", job_id AS "jobId"`;
    if (row)
      await publicationFinished(
        { userId, publicationId: seen.id, resultId: row.resultId, status: 'failed', errorCode: seen.lastErrorCode, error: seen.lastError },
        tx,
      );
    return row?.jobId;
  });
  if (jobId) await cancelPublishJobs([jobId]);
  return getPublication(userId, seen.id, db);
}

export type PublishOutcome = {
  publication: Publication;
  /**
   * published / failed: the site answered in time; background: still running; scheduled: for
   * later; held: gated and its post's report fails (it waits, queued, until the post is approved).
   */
  outcome: 'published' | 'failed' | 'background' | 'scheduled' | 'held';
  /** A held post's report (why it waits). */
  quality?: QualityReport | null;
};

/**
 * Publish now: queued through the one idempotent job path, then, unless scheduled for later,
 * waited for up to WORDPRESS_PUBLISH_WAIT_SECONDS. A failure the site gives in that time ends the
 * publication failed at once; only a slow site is left to the background. Undefined when there was
 * nothing to queue.
 */
export async function publishAndWait(
  userId: string,
  p: PublishInput,
  waitMs = env.WORDPRESS_PUBLISH_WAIT_SECONDS * 1000,
  /** How the publication is queued (an Idempotency-Key's replay: the one queued the first time). */
  queue: () => Promise<Publication | undefined> = () => queuePublish(userId, p),
): Promise<PublishOutcome | undefined> {
  const queued = await queue();
  if (!queued) return undefined;
  // Held for review: nothing to wait for (its job stands down until the post is approved).
  const hold = queued.status === 'queued' ? await reviewHold(queued.id) : { held: false, quality: null };
  if (hold.held) return { publication: queued, outcome: 'held', quality: hold.quality };
  if (Date.parse(queued.publishAt) > Date.now() + 1000) return { publication: queued, outcome: 'scheduled' };
  let publication = await waitForPublication(userId, queued.id, waitMs, queued.attempts);
  if (failedBySite(publication, queued.attempts)) publication = await endFailed(userId, publication);
  const outcome = publication.status === 'published' ? 'published' : publication.status === 'queued' ? 'background' : 'failed';
  return { publication, outcome };
}
