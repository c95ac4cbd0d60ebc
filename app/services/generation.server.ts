import { sql, transaction, type Db } from '../../db/client';
import { enqueueMany } from '~/queue/boss';
import {
  canUseModel,
  DEFAULT_IMAGE_MODEL,
  DEFAULT_TEXT_MODEL,
  findModel,
  isPro,
  runCost,
  type Model,
  type SubscriptionStatus,
} from '~/catalogue';
import { LedgerError, ensureCurrentPeriod, holdKey, reserve, settleHolds, type ReserveItem } from './ledger.server';
import { providerKey } from './api-keys.server';
import { env } from '~/utils/env.server';
import type { GenerationInput, ImageGenerationInput, TextGenerationInput } from '~/utils/generation-schema';
import { briefsByTopic, topicKey } from '~/utils/csv-file';
import { AppError, type ErrorParams } from '~/utils/app-error';
import { creditsSpent, runMayHaveEnded } from './webhooks.server';
import { linkWhenRunEnds } from './internal-links.server';

// Bulk generation (issue 7): a run is one press of Start; it owns one result row per topic, each
// with its own credit hold (ledger.server.ts holdKey) and its own `generate-item` job. The worker
// side (claiming, calling the provider, finishing exactly once) is in generation-worker.server.ts.

export const GENERATE_QUEUE = 'generate-item';
/** NOTIFY channel that wakes the generation workers of every process. */
export const WAKE_CHANNEL = 'postforge_generation';
/** The payload on WAKE_CHANNEL after a cancel: workers drop the canceled items they keep next in line. */
export const CANCELED_SIGNAL = 'canceled';

export const GENERATION_ERROR_CODES = [
  'insufficient_credits',
  'pro_only',
  'no_api_key',
  'too_many_topics',
  'invalid',
  'not_found',
  'not_retryable',
  'not_editable',
  'no_content',
] as const;
export type GenerationErrorCode = (typeof GENERATION_ERROR_CODES)[number];

/**
 * A refusal of the service: `key` is the message's key in the `generation` namespace and `params`
 * its interpolation values; `message` is the English text. Its HTTP status is the edge's business
 * (app/http/errors.server.ts).
 */
export class GenerationError extends AppError<'generation', GenerationErrorCode> {
  constructor(code: GenerationErrorCode, key: string, message: string, params: ErrorParams = {}) {
    super('generation', code, key, message, params);
    this.name = 'GenerationError';
  }
}

export const errors = {
  insufficientCredits: () =>
    new GenerationError('insufficient_credits', 'errors.insufficientCredits', 'Insufficient credits. Please upgrade your plan.'),
  proOnly: (model: Model) => {
    const models = [DEFAULT_TEXT_MODEL, DEFAULT_IMAGE_MODEL].map((id) => findModel(id)!.label).join(', ');
    return new GenerationError('pro_only', 'errors.proOnly', `Free users can only use ${models}. Upgrade to Pro to use ${model.label}.`, {
      models,
      model: model.label,
    });
  },
  noApiKey: (kind: 'text' | 'image') =>
    kind === 'text'
      ? new GenerationError('no_api_key', 'errors.noTextApiKey', 'Failed to start text generation. Please check your API keys.')
      : new GenerationError('no_api_key', 'errors.noImageApiKey', 'Failed to start image generation. Please check your API keys.'),
  tooManyTopics: (max: number) =>
    new GenerationError('too_many_topics', 'errors.tooManyTopics', `Too many topics: at most ${max} per run.`, { max }),
  invalid: (message: string) => new GenerationError('invalid', 'errors.startFailed', message),
  notFound: (what: 'result' | 'job' | 'image' = 'result') =>
    new GenerationError(
      'not_found',
      what === 'job' ? 'errors.jobNotFound' : what === 'image' ? 'errors.imageNotFound' : 'errors.notFound',
      what === 'job' ? 'Job not found.' : what === 'image' ? 'Image not found.' : 'Result not found.',
    ),
  notRetryable: () => new GenerationError('not_retryable', 'errors.notRetryable', 'Only failed or canceled results can be retried.'),
  notEditable: () => new GenerationError('not_editable', 'errors.notEditable', 'Only completed text results can be edited.'),
  noContent: (key = 'errors.noContent', message = 'No content to download.') => new GenerationError('no_content', key, message),
};

/** The settings of the generation processes (env contract, README "Generation"). */
export function generationConfig() {
  return {
    concurrency: env.GENERATION_CONCURRENCY,
    perUser: env.GENERATION_CONCURRENCY_PER_USER,
    maxTopics: env.MAX_TOPICS_PER_RUN,
    leaseSeconds: env.GENERATION_LEASE_SECONDS,
  };
}

// ---------------------------------------------------------------------------------------------
// Holds and the sweeper. Every hold is reserved with its own expiry (long enough for the run to be
// worked through), and a worker moves it on with the item's lease while it works (ledger extendHolds).
// The ledger's sweeper voids only holds past their expiry, so it never voids the hold of an item
// still queued or being worked on; a hold it did void (the work was abandoned too long) means the
// item ends failed, uncharged (see generation-worker.server.ts).

/** How long a new hold of queued work is kept before the sweeper may void it. */
export function holdExpiry(items: number, now = Date.now()): Date {
  const { concurrency, perUser } = generationConfig();
  const rounds = Math.ceil(items / Math.max(1, Math.min(concurrency, perUser)));
  // Generous: every round may take the provider's timeout, plus a day of queueing.
  return new Date(now + (rounds * env.GENERATION_PROVIDER_TIMEOUT_SECONDS + 24 * 3600) * 1000);
}

/** A leased item's hold lives at least this long past now (two leases: a missed heartbeat is fine). */
export function leaseHoldExpiry(leaseSeconds: number, now = Date.now()): Date {
  return new Date(now + 2 * leaseSeconds * 1000);
}

// ---------------------------------------------------------------------------------------------
// Starting a run

export type StartedRun = { runId: string; resultIds: string[]; credits: number; total: number };

type UserPlan = { status: SubscriptionStatus };

async function userPlan(userId: string, db: Db): Promise<UserPlan> {
  const [row] = await db<{ status: SubscriptionStatus }[]>`SELECT subscription_status AS status FROM users WHERE id = ${userId}`;
  if (!row) throw errors.notFound('job');
  return row;
}

/** Refuses a model the user's plan does not allow ('Free users can only use ...'). */
export async function checkModelAllowed(userId: string, modelId: string, db: Db = sql): Promise<Model> {
  const model = findModel(modelId);
  if (!model) throw errors.invalid('Please select a model');
  const { status } = await userPlan(userId, db);
  if (!canUseModel(status, model)) throw errors.proOnly(model);
  return model;
}

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

export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

export { isPro };
export type { TextGenerationInput, ImageGenerationInput, GenerationInput };
