import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import type { Plan } from '~/utils/plan-schema';
import type { GenerationFailure } from '~/utils/generation-errors';
import type { ResearchSource, ResearchStatus } from '~/utils/research-sources';
import { extendHolds, holdKey } from '../ledger.server';
import { GENERATE_QUEUE, WAKE_CHANNEL, errors, isUuid } from './rules.server';
import { WORKER_ID, type ClaimedItem, type ItemOutcome } from './item.server';
import { cancelItems } from './cancel.server';
import type { Research } from './research.server';

// Plan first: the items of a plan-first run are planned, then wait `planned` for their owner, who
// edits, drops, re-plans or writes them. This module owns generation_plans (what an item's next job
// does, its plan, and what the plan's research found) and every move in and out of `planned`. The item's credit hold stays open the
// whole time: written → posted by the usual finish, dropped → voided here, once either way.

/** How long a planned post's credits stay held while it waits for review (then the sweeper releases them). */
export const PLAN_HOLD_DAYS = 30;

export function planHoldExpiry(now = Date.now()): Date {
  return new Date(now + PLAN_HOLD_DAYS * 24 * 3600 * 1000);
}

export type PlanPhase = 'plan' | 'write';

/** A run's settings ask for plans first. */
export function isPlanFirst(settings: Record<string, unknown> | null | undefined): boolean {
  return settings?.planFirst === true;
}

/** The plan rows of a plan-first run's new items (in the run's starting transaction). */
export async function createPlanRows(userId: string, resultIds: string[], tx: Db): Promise<void> {
  await tx`
    INSERT INTO generation_plans (result_id, user_id)
    SELECT id, ${userId} FROM unnest(${resultIds}::uuid[]) AS id`;
}

/** What the worker's job does for this item now, and the approved plan and its sources when it writes. */
export async function planStateOf(
  item: Pick<ClaimedItem, 'resultId' | 'userId'>,
  db: Db,
): Promise<{ phase: PlanPhase; plan: Plan | null; sources: ResearchSource[] } | null> {
  const [row] = await db<{ phase: PlanPhase; plan: Plan | null; sources: ResearchSource[] }[]>`
    SELECT phase, plan, sources FROM generation_plans WHERE result_id = ${item.resultId} AND user_id = ${item.userId}`;
  return row ?? null;
}

/**
 * The plan made: the item stops `planned`, its plan and its research's sources stored and its hold
 * kept for the review (PLAN_HOLD_DAYS). Skipped when the item was no longer ours; a hold already
 * swept ends it failed (the caller books that).
 */
export async function bookPlanned(item: ClaimedItem, plan: Plan, research: Research | null, db: Db): Promise<ItemOutcome | 'hold_gone'> {
  return transaction(db, async (tx) => {
    const key = holdKey(item.resultId, item.attempt);
    if (!(await extendHolds([key], planHoldExpiry(), tx)).includes(key)) return 'hold_gone';
    const [done] = await tx`
      UPDATE generation_results SET status = 'planned', title = ${plan.title}, lease_until = NULL, updated_at = now()
      WHERE id = ${item.resultId} AND user_id = ${item.userId} AND attempt = ${item.attempt} AND status = 'processing'
      RETURNING id, pg_notify(${WAKE_CHANNEL}, ${WORKER_ID}) AS woken`;
    if (!done) return 'skipped';
    const sources: ResearchSource[] = (research?.findings ?? []).map((f) => ({ url: f.url, title: f.title }));
    await tx`
      UPDATE generation_plans SET plan = ${tx.json(plan as never)}, research = ${research?.status ?? null},
        sources = ${tx.json(sources as never)}, updated_at = now()
      WHERE result_id = ${item.resultId}`;
    return 'planned';
  });
}

export type PlanView = {
  id: string;
  runId: string;
  position: number;
  prompt: string;
  status: 'processing' | 'planned' | 'completed' | 'failed' | 'canceled';
  phase: PlanPhase;
  plan: Plan | null;
  /** What the plan's research found (null: no search API was configured when it was planned). */
  research: { status: ResearchStatus; sources: ResearchSource[] } | null;
  credits: number;
  errorCode: GenerationFailure | null;
};

const viewColumns = (d: Db) => d`
  r.id, r.run_id AS "runId", r.position, r.prompt, r.status, p.phase, p.plan,
  CASE WHEN p.research IS NULL THEN NULL ELSE jsonb_build_object('status', p.research, 'sources', p.sources) END AS research,
  r.credits, r.error_code AS "errorCode"`;

/** The plans of the owner's run, in topic order (empty for a run without plans). */
export async function listRunPlans(userId: string, runId: string, db: Db = sql): Promise<PlanView[]> {
  if (!isUuid(runId)) throw errors.notFound('job');
  return db<PlanView[]>`
    SELECT ${viewColumns(db)}
    FROM generation_results r JOIN generation_plans p ON p.result_id = r.id
    WHERE r.run_id = ${runId} AND r.user_id = ${userId}
    ORDER BY r.position`;
}

/** One of the owner's plans (an item of a plan-first run); another user's → not_found. */
export async function getPlan(userId: string, resultId: string, db: Db = sql): Promise<PlanView> {
  if (!isUuid(resultId)) throw errors.notFound();
  const [row] = await db<PlanView[]>`
    SELECT ${viewColumns(db)}
    FROM generation_results r JOIN generation_plans p ON p.result_id = r.id
    WHERE r.id = ${resultId} AND r.user_id = ${userId}`;
  if (!row) throw errors.notFound();
  return row;
}

/** Why a plan could not be acted on: it is not the owner's (404) or not planned now (409). */
async function refusal(userId: string, resultId: string, db: Db): Promise<never> {
  await getPlan(userId, resultId, db);
  throw errors.notPlanned();
}

/** The owner's edit of a planned post's plan; its title is the item's title meanwhile. */
export async function savePlan(userId: string, resultId: string, plan: Plan, db: Db = sql): Promise<PlanView> {
  if (!isUuid(resultId)) throw errors.notFound();
  return transaction(db, async (tx) => {
    const [row] = await tx`
      UPDATE generation_results SET title = ${plan.title}, updated_at = now()
      WHERE id = ${resultId} AND user_id = ${userId} AND status = 'planned' RETURNING id`;
    if (!row) return refusal(userId, resultId, tx);
    await tx`UPDATE generation_plans SET plan = ${tx.json(plan as never)}, updated_at = now() WHERE result_id = ${resultId}`;
    return getPlan(userId, resultId, tx);
  });
}

/** Drops one planned post (404 when not the owner's, 409 when not planned). */
export async function dropPlan(userId: string, resultId: string, db: Db = sql): Promise<void> {
  if (!isUuid(resultId)) throw errors.notFound();
  // It ends canceled with its hold voided, as a cancel ends an item not yet started.
  if ((await cancelItems(userId, { resultId, plannedOnly: true }, false, db)) === 0) await refusal(userId, resultId, db);
}

/**
 * Takes planned items back to the queue for their next step (`plan` again, or `write`), under the
 * same attempt and hold: one job each, the workers woken on commit. Returns the ids moved.
 */
async function requeue(userId: string, phase: PlanPhase, where: { runId?: string; ids?: string[] }, db: Db): Promise<string[]> {
  return transaction(db, async (tx) => {
    const rows = await tx<{ id: string; attempt: number; position: number }[]>`
      UPDATE generation_results SET status = 'processing', deliveries = 0, lease_until = NULL, started_at = NULL,
        error = NULL, error_code = NULL, error_params = NULL, updated_at = now()
      WHERE user_id = ${userId} AND status = 'planned'
        ${where.runId ? tx`AND run_id = ${where.runId}` : tx``}
        ${where.ids ? tx`AND id = ANY(${where.ids}::uuid[])` : tx``}
      RETURNING id, attempt, position`;
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await tx`UPDATE generation_plans SET phase = ${phase}, updated_at = now() WHERE result_id = ANY(${ids}::uuid[])`;
    // A re-plan starts its writing afresh: no section of an earlier outline is kept.
    if (phase === 'plan') await tx`DELETE FROM generation_sections WHERE result_id = ANY(${ids}::uuid[])`;
    await enqueueMany(
      GENERATE_QUEUE,
      rows.map((r) => ({ payload: { resultId: r.id, userId, attempt: r.attempt }, priority: -Math.min(r.position, 100_000) })),
      tx,
    );
    await tx`SELECT pg_notify(${WAKE_CHANNEL}, ${ids[0]!})`;
    return ids;
  });
}

/** Plans one planned post again (the edits are replaced by a new plan). */
export async function replan(userId: string, resultId: string, db: Db = sql): Promise<PlanView> {
  if (!isUuid(resultId)) throw errors.notFound();
  if ((await requeue(userId, 'plan', { ids: [resultId] }, db)).length === 0) await refusal(userId, resultId, db);
  return getPlan(userId, resultId, db);
}

/**
 * Writes the run's planned posts from their plans: the ones named, or all of them. Each is written
 * section by section and charged when done (its hold posted). Returns how many went to the queue.
 */
export async function writePlans(userId: string, runId: string, resultIds: string[] | null, db: Db = sql): Promise<number> {
  if (!isUuid(runId)) throw errors.notFound('job');
  const ids = resultIds?.filter(isUuid) ?? null;
  if (ids && ids.length === 0) return 0;
  return (await requeue(userId, 'write', { runId, ids: ids ?? undefined }, db)).length;
}
