import { sql, transaction, type Db } from '../../../db/client';
import { releaseApproved } from '../wordpress/review-gate.server';
import { resultFlagged } from '../webhooks.server';
import type { QualityReport } from '~/utils/quality/report';

// Approving results for gated publishing: the owner's word that a post whose report failed may go
// out. Approving releases its held publications in the same transaction.

/** Whether a result is in the review list: a completed text whose report failed, not approved. */
export const NEEDS_REVIEW = (db: Db) =>
  db`r.type = 'text' AND r.status = 'completed' AND r.quality_status = 'fail' AND r.approved_at IS NULL`;

/**
 * Approves the owner's results (`all`: every one in the review list). Results of another owner,
 * or not completed texts, are left alone. Returns the ids approved and the publications released.
 */
export async function approveResults(
  userId: string,
  ids: string[] | 'all',
  db: Db = sql,
): Promise<{ approved: string[]; released: number }> {
  const valid = ids === 'all' ? 'all' : ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  if (valid !== 'all' && valid.length === 0) return { approved: [], released: 0 };
  return transaction(db, async (tx) => {
    const rows = await tx<{ id: string }[]>`
      UPDATE generation_results r SET approved_at = now()
      WHERE r.user_id = ${userId} AND r.type = 'text' AND r.status = 'completed' AND r.approved_at IS NULL
        ${valid === 'all' ? tx`AND ${NEEDS_REVIEW(tx)}` : tx`AND r.id = ANY(${valid}::uuid[])`}
      RETURNING r.id`;
    const approved = rows.map((r) => r.id);
    return { approved, released: await releaseApproved(userId, approved, tx) };
  });
}

/**
 * Withdraws an approval when the post's text was written anew by us (a one-click fix): the owner
 * approved the words they read, not the ones that replaced them, so the gate judges the new text.
 */
export async function withdrawApproval(userId: string, id: string, db: Db = sql): Promise<void> {
  await transaction(db, async (tx) => {
    const [row] = await tx<{ wasApproved: boolean; quality: QualityReport | null; runId: string; attempt: number }[]>`
      UPDATE generation_results r SET approved_at = NULL
      FROM (SELECT id, approved_at FROM generation_results WHERE id = ${id} AND user_id = ${userId} FOR UPDATE) old
      WHERE r.id = old.id
      RETURNING old.approved_at IS NOT NULL AS "wasApproved", r.quality, r.run_id AS "runId", r.attempt`;
    // A failing post that was approved is held again from now: flagged (result.flagged).
    if (row?.wasApproved && row.quality?.status === 'fail') {
      await resultFlagged({ userId, resultId: id, runId: row.runId, attempt: row.attempt, cause: 'edited', report: row.quality }, tx);
    }
  });
}
