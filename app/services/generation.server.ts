import { sql, transaction, type Db } from '../../db/client';
import { enqueueMany } from '~/queue/boss';
import { canUseModel, findModel, isPro, runCost } from '~/catalogue';
import { LedgerError, ensureCurrentPeriod, holdKey, reserve, settleHolds, type ReserveItem } from './ledger.server';
import { providerKey } from './api-keys.server';
import type { GenerationInput, ImageGenerationInput, TextGenerationInput } from '~/utils/generation-schema';
import { briefsByTopic, topicKey } from '~/utils/csv-file';
import { creditsSpent, runMayHaveEnded } from './webhooks.server';
import { linkWhenRunEnds } from './internal-links.server';
import {
  GENERATE_QUEUE,
  WAKE_CHANNEL,
  CANCELED_SIGNAL,
  errors,
  generationConfig,
  holdExpiry,
  userPlan,
  isUuid,
} from './generation-rules.server';

// Bulk generation (issue 7): a run is one press of Start; it owns one result row per topic, each
// with its own credit hold (ledger.server.ts holdKey) and its own `generate-item` job. The worker
// side (claiming, calling the provider, finishing exactly once) is in generation-worker.server.ts.

// ---------------------------------------------------------------------------------------------
// Starting a run

export type StartedRun = { runId: string; resultIds: string[]; credits: number; total: number };

/** Settings kept on the run and on each result's metadata (no keys, no prompts). */
function runSettings(input: GenerationInput): Record<string, unknown> {
  const { prompts: _p, replicateApiKey: _k, rows: _r, ...settings } = input as GenerationInput & { replicateApiKey?: string };
  return settings;
}

/**
 * Starts a run: checks the plan and the provider keys, then in ONE transaction creates the run,
 * one result row per topic, one hold per item (all or nothing) and the jobs (one batch insert),
 * and wakes the workers of every process on commit. Throws GenerationError.
 */
export async function startRun(userId: string, input: GenerationInput, db: Db = sql): Promise<StartedRun> {
  const model = findModel(input.model);
  if (!model || model.kind !== input.type) throw errors.invalid('Please select a model');
  const { maxTopics } = generationConfig();
  const topics = input.prompts;
  if (topics.length === 0) throw errors.invalid('No valid blog topics or keywords found.');
  if (topics.length > maxTopics) throw errors.tooManyTopics(maxTopics);
  const { status } = await userPlan(userId, db);
  if (!canUseModel(status, model)) throw errors.proOnly(model);
  const embed = input.type === 'text' && (input as TextGenerationInput).embedImage;
  if (input.type === 'text' || embed) {
    if (input.type === 'text' && !(await providerKey(userId, 'openrouter', db))) throw errors.noApiKey('text');
  }
  if (input.type === 'image' || embed) {
    if (!(await providerKey(userId, 'replicate', db))) throw errors.noApiKey(input.type);
  }
  const perItem = runCost(model, 1, Boolean(embed));
  const settings = runSettings(input);
  // A CSV's optional columns (title, keywords, instructions) go with the topic of their row, kept on
  // the item's metadata (`brief`): the worker puts them into its prompt, the result shows them.
  const briefs = briefsByTopic(input.rows);
  const briefOfTopic = topics.map((topic) => {
    const brief = briefs.get(topicKey(topic));
    return brief ? JSON.stringify(brief) : '';
  });
  return transaction(db, async (tx) => {
    await ensureCurrentPeriod(userId, undefined, tx);
    const [run] = await tx<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, settings, total)
      VALUES (${userId}, ${input.type}, ${model.id}, ${tx.json(settings as never)}, ${topics.length})
      RETURNING id`;
    const runId = run!.id;
    const rows = await tx<{ id: string; position: number }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, model, credits, metadata, search_text)
      SELECT ${userId}, ${runId}, t.position - 1, ${input.type}, t.prompt, ${model.id}, ${perItem},
             jsonb_build_object('originalPrompt', t.prompt)
               || CASE WHEN t.brief = '' THEN '{}'::jsonb ELSE jsonb_build_object('brief', t.brief::jsonb) END,
             t.prompt
      FROM unnest(${topics}::text[], ${briefOfTopic}::text[]) WITH ORDINALITY AS t(prompt, brief, position)
      RETURNING id, position`;
    rows.sort((a, b) => a.position - b.position);
    const until = holdExpiry(rows.length);
    const items: ReserveItem[] = rows.map((r) => ({ key: holdKey(r.id, 1), amount: perItem, expiresAt: until }));
    try {
      await reserve(userId, items, tx);
    } catch (err) {
      if (err instanceof LedgerError && err.code === 'insufficient_credits') throw errors.insufficientCredits();
      throw err;
    }
    await creditsSpent(userId, perItem * rows.length, tx);
    await enqueueMany(
      GENERATE_QUEUE,
      rows.map((r) => ({
        payload: { resultId: r.id, userId, attempt: 1 },
        // Fairness: the k-th item of every run has the same priority, so runs interleave and a
        // single item is never queued behind another user's thousand.
        priority: -Math.min(r.position, 100_000),
      })),
      tx,
    );
    await tx`SELECT pg_notify(${WAKE_CHANNEL}, ${runId})`;
    return { runId, resultIds: rows.map((r) => r.id), credits: perItem * rows.length, total: rows.length };
  });
}

// ---------------------------------------------------------------------------------------------
// Progress and cancel

export type RunStatus = 'processing' | 'completed' | 'canceled';

export type RunProgress = {
  id: string;
  type: 'text' | 'image';
  model: string;
  totalPrompts: number;
  completedPrompts: number;
  failedPrompts: number;
  canceledPrompts: number;
  processingPrompts: number;
  /** Credits given back: the holds of the failed and canceled items, voided (issue 25). */
  refundedCredits: number;
  /**
   * completed when nothing is processing any more; canceled when the run was stopped and the stop
   * canceled something (a cancel that came after every item had started ends completed).
   */
  status: RunStatus;
  createdAt: string;
};

/** The owner's run's counts (SPEC §7 job); another user's id → not_found. */
export async function getRunProgress(userId: string, runId: string, db: Db = sql): Promise<RunProgress> {
  if (!isUuid(runId)) throw errors.notFound('job');
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
      refunded: number;
    }[]
  >`
    SELECT r.id, r.type, r.model, r.canceled_at AS "canceledAt", r.created_at AS "createdAt",
      count(x.id)::int AS total,
      count(x.id) FILTER (WHERE x.status = 'completed')::int AS completed,
      count(x.id) FILTER (WHERE x.status = 'failed')::int AS failed,
      count(x.id) FILTER (WHERE x.status = 'canceled')::int AS canceled,
      count(x.id) FILTER (WHERE x.status = 'processing')::int AS processing,
      coalesce(sum(x.credits) FILTER (WHERE x.status IN ('failed', 'canceled')), 0)::int AS refunded
    FROM generation_runs r LEFT JOIN generation_results x ON x.run_id = r.id
    WHERE r.id = ${runId} AND r.user_id = ${userId}
    GROUP BY r.id`;
  if (!row) throw errors.notFound('job');
  return {
    id: row.id,
    type: row.type,
    model: row.model,
    totalPrompts: row.total,
    completedPrompts: row.completed,
    failedPrompts: row.failed,
    canceledPrompts: row.canceled,
    processingPrompts: row.processing,
    refundedCredits: row.refunded,
    status: row.processing > 0 ? 'processing' : row.canceledAt && row.canceled > 0 ? 'canceled' : 'completed',
    createdAt: row.createdAt.toISOString(),
  };
}

/** The owner's most recent run (the workspace shows its progress), or null. */
export async function getLatestRun(userId: string, db: Db = sql): Promise<RunProgress | null> {
  const [row] = await db<{ id: string }[]>`
    SELECT id FROM generation_runs WHERE user_id = ${userId} ORDER BY created_at DESC LIMIT 1`;
  return row ? getRunProgress(userId, row.id, db) : null;
}

/**
 * Items of the given results that have not reached their provider end canceled and their holds
 * are voided (one transaction): those no worker holds and those a worker keeps next in line (it
 * is told to drop them). Items at their provider finish normally unless `includeRunning`.
 */
export async function cancelItems(
  userId: string,
  where: { runId?: string; resultId?: string; all?: boolean },
  includeRunning = false,
  db: Db = sql,
): Promise<number> {
  return transaction(db, async (tx) => {
    const rows = await tx<{ id: string; attempt: number }[]>`
      UPDATE generation_results SET status = 'canceled', error = NULL, error_code = NULL, error_params = NULL, lease_until = NULL, updated_at = now()
      WHERE user_id = ${userId} AND status = 'processing'
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
  // The cancel may have ended the run: its completed posts get linked (issue 26).
  await linkWhenRunEnds(userId, { runId }, db);
  return getRunProgress(userId, runId, db);
}

export { isPro };
export type { TextGenerationInput, ImageGenerationInput, GenerationInput };
