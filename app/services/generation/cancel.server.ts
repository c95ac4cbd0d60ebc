import { sql, transaction, type Db } from '../../../db/client';
import { holdKey, settleHolds } from '../ledger.server';
import { runMayHaveEnded } from '../webhooks.server';
import { linkWhenRunEnds } from '../internal-links.server';
import { CANCELED_SIGNAL, WAKE_CHANNEL, errors, isUuid } from './rules.server';
import { getRunProgress, type RunProgress } from './progress.server';

// Stopping items: a cancel ends those no worker has sent to their provider and voids their holds;
// a worker keeping one next in line drops it when told (CANCELED_SIGNAL).

/**
 * Items of the given results that have not reached their provider end canceled and their holds
 * are voided (one transaction): those no worker holds and those a worker keeps next in line (it
 * is told to drop them), and planned ones (`plannedOnly`: those alone). Items at their provider
 * finish normally unless `includeRunning`.
 */
export async function cancelItems(
  userId: string,
  where: { runId?: string; resultId?: string; all?: boolean; plannedOnly?: boolean },
  includeRunning = false,
  db: Db = sql,
): Promise<number> {
  return transaction(db, async (tx) => {
    const rows = await tx<{ id: string; attempt: number }[]>`
      UPDATE generation_results SET status = 'canceled', error = NULL, error_code = NULL, error_params = NULL, lease_until = NULL, updated_at = now()
      WHERE user_id = ${userId} AND status IN ${where.plannedOnly ? tx`('planned')` : tx`('processing', 'planned')`}
        ${where.runId ? tx`AND run_id = ${where.runId}` : tx``}
        ${where.resultId ? tx`AND id = ${where.resultId}` : tx``}
        ${includeRunning ? tx`` : tx`AND (lease_until IS NULL OR lease_until < now() OR started_at IS NULL)`}
      RETURNING id, attempt`;
    if (rows.length > 0) {
      await settleHolds(
        rows.map((r) => holdKey(r.id, r.attempt)),
        'void',
        tx,
      );
      await tx`SELECT pg_notify(${WAKE_CHANNEL}, ${CANCELED_SIGNAL})`;
    }
    return rows.length;
  });
}

/** Stops a run: items not yet started end canceled with their holds voided. */
export async function cancelRun(userId: string, runId: string, db: Db = sql): Promise<RunProgress> {
  if (!isUuid(runId)) throw errors.notFound('job');
  await transaction(db, async (tx) => {
    const [run] = await tx<{ id: string }[]>`
      UPDATE generation_runs SET canceled_at = coalesce(canceled_at, now())
      WHERE id = ${runId} AND user_id = ${userId} RETURNING id`;
    if (!run) throw errors.notFound('job');
    await cancelItems(userId, { runId }, false, tx);
    await runMayHaveEnded(userId, runId, () => getRunProgress(userId, runId, tx), tx);
  });
  // The cancel may have ended the run: its completed posts get linked.
  await linkWhenRunEnds(userId, { runId }, db);
  return getRunProgress(userId, runId, db);
}
