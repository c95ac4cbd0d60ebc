import type { PendingQuery, Row } from 'postgres';
import { sql, type Db } from '../../../db/client';
import { errors, isUuid } from './rules.server';

// A run's counts, read from its items: what the workspace, the progress page and the API show.

/** `planned`: nothing is processing and some plans wait for their owner's review. */
export type RunStatus = 'processing' | 'planned' | 'completed' | 'canceled';

export type RunProgress = {
  id: string;
  type: 'text' | 'image';
  model: string;
  totalPrompts: number;
  completedPrompts: number;
  failedPrompts: number;
  canceledPrompts: number;
  processingPrompts: number;
  /** Plans waiting for review (plan-first runs), their credits still held. */
  plannedPrompts: number;
  /** Credits given back: the holds of the failed and canceled items, voided. */
  refundedCredits: number;
  /**
   * completed when nothing is processing any more; canceled when the run was stopped and the stop
   * canceled something (a cancel that came after every item had started ends completed).
   */
  status: RunStatus;
  createdAt: string;
};

/** The owner's run's counts (the API's job); another user's id → not_found. */
export async function getRunProgress(userId: string, runId: string, db: Db = sql): Promise<RunProgress> {
  if (!isUuid(runId)) throw errors.notFound('job');
  const progress = await readProgress(userId, db`${runId}`, db);
  if (!progress) throw errors.notFound('job');
  return progress;
}

/** The counts of the owner's run picked by `run` (an id, or a subquery giving one); null when none. */
async function readProgress(userId: string, run: PendingQuery<Row[]>, db: Db): Promise<RunProgress | null> {
  const [row] = await db<
    {
      id: string;
      type: 'text' | 'image';
      model: string;
      canceledAt: Date | null;
      createdAt: Date;
      total: number;
      completed: number;
      failed: number;
      canceled: number;
      processing: number;
      planned: number;
      refunded: number;
    }[]
  >`
    SELECT r.id, r.type, r.model, r.canceled_at AS "canceledAt", r.created_at AS "createdAt",
      count(x.id)::int AS total,
      count(x.id) FILTER (WHERE x.status = 'completed')::int AS completed,
      count(x.id) FILTER (WHERE x.status = 'failed')::int AS failed,
      count(x.id) FILTER (WHERE x.status = 'canceled')::int AS canceled,
      count(x.id) FILTER (WHERE x.status = 'processing')::int AS processing,
      count(x.id) FILTER (WHERE x.status = 'planned')::int AS planned,
      coalesce(sum(x.credits) FILTER (WHERE x.status IN ('failed', 'canceled')), 0)::int AS refunded
    FROM generation_runs r LEFT JOIN generation_results x ON x.run_id = r.id
    WHERE r.id = ${run} AND r.user_id = ${userId}
    GROUP BY r.id`;
  if (!row) return null;
  return {
    id: row.id,
    type: row.type,
    model: row.model,
    totalPrompts: row.total,
    completedPrompts: row.completed,
    failedPrompts: row.failed,
    canceledPrompts: row.canceled,
    processingPrompts: row.processing,
    plannedPrompts: row.planned,
    refundedCredits: row.refunded,
    status: row.processing > 0 ? 'processing' : row.planned > 0 ? 'planned' : row.canceledAt && row.canceled > 0 ? 'canceled' : 'completed',
    createdAt: row.createdAt.toISOString(),
  };
}

/** The owner's most recent run (the workspace shows its progress), or null. */
export async function getLatestRun(userId: string, db: Db = sql): Promise<RunProgress | null> {
  // One round trip: the latest run's id as a subquery of the counts' query.
  return readProgress(userId, db`(SELECT id FROM generation_runs WHERE user_id = ${userId} ORDER BY created_at DESC LIMIT 1)`, db);
}
