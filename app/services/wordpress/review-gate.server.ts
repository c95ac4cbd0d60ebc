import crypto from 'node:crypto';
import { sql, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import type { QualityReport } from '~/utils/quality/report';

// The quality gate at publish time. A publication is gated when it was queued with the gate on (a
// publish, a bulk publish or a drip plan), or when its post's run was started with it. A gated post goes out only if its quality report has no failed check
// (warnings pass) or its owner approved it; until then it stays queued and its job does nothing.
// Approving it gives it a new job at its own time (its drip slot), or at once when that has passed.

/**
 * Whether the publication must wait for its post's approval, and the post's report (its reason:
 * the checks that failed; null for a post completed before reports, which waits too).
 */
export async function reviewHold(publicationId: string, db: Db = sql): Promise<{ held: boolean; quality: QualityReport | null }> {
  const [row] = await db<{ held: boolean; quality: QualityReport | null }[]>`
    SELECT (p.quality_gate OR g.quality_gate)
           AND r.approved_at IS NULL AND coalesce(r.quality_status, 'fail') = 'fail' AS held, r.quality
    FROM wordpress_publications p
    JOIN generation_results r ON r.id::text = p.result_id AND r.user_id = p.user_id AND r.type = 'text'
    JOIN generation_runs g ON g.id = r.run_id
    WHERE p.id = ${publicationId} AND p.kind = 'post'`;
  return { held: row?.held ?? false, quality: row?.held ? row.quality : null };
}

/** Whether the publication must wait for its post's approval. */
export async function heldForReview(publicationId: string, db: Db = sql): Promise<boolean> {
  return (await reviewHold(publicationId, db)).held;
}

/**
 * After results were approved: each of their waiting publications gets a new job at its own time
 * (or now, if that passed). A job still waiting for the old time stands down (its id no longer
 * matches). Returns how many publications were released.
 */
export async function releaseApproved(userId: string, resultIds: string[], db: Db = sql): Promise<number> {
  if (resultIds.length === 0) return 0;
  const now = Date.now();
  const waiting = await db<{ id: string; publish_at: Date }[]>`
    SELECT id, publish_at FROM wordpress_publications
    WHERE user_id = ${userId} AND result_id = ANY(${resultIds}::text[]) AND status = 'queued' AND kind = 'post'
    FOR UPDATE`;
  const jobs = waiting.map((w) => ({
    id: crypto.randomUUID(),
    payload: { publicationId: w.id },
    ...(w.publish_at.getTime() > now ? { startAfter: w.publish_at } : {}),
  }));
  for (const [i, w] of waiting.entries()) {
    await db`UPDATE wordpress_publications SET job_id = ${jobs[i]!.id}, updated_at = now() WHERE id = ${w.id}`;
  }
  await enqueueMany('wordpress-publish', jobs, db);
  return waiting.length;
}

/** The results among these whose waiting publications are held for review now (the results list reads it with their publications). */
export function heldResultIds(userId: string, resultIds: string[], db: Db) {
  return db`
    SELECT DISTINCT p.result_id FROM wordpress_publications p
    JOIN generation_results r ON r.id::text = p.result_id AND r.user_id = p.user_id
    JOIN generation_runs g ON g.id = r.run_id
    WHERE p.user_id = ${userId} AND p.result_id = ANY(${resultIds}::text[]) AND p.status = 'queued' AND p.kind = 'post'
      AND (p.quality_gate OR g.quality_gate)
      AND r.approved_at IS NULL AND coalesce(r.quality_status, 'fail') = 'fail'`;
}
