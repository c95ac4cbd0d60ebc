import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { canUseModel, findModel, runCost } from '~/catalogue';
import type { GenerationInput, TextGenerationInput } from '~/utils/generation-schema';
import { briefsByTopic, topicKey } from '~/utils/csv-file';
import { LedgerError, ensureCurrentPeriod, holdKey, reserve, type ReserveItem } from '../ledger.server';
import { providerKey, saveApiKeys } from '../api-keys.server';
import { loadTopicDraft } from '../topic-drafts.server';
import { creditsSpent } from '../webhooks.server';
import { createPlanRows, isPlanFirst, planHoldExpiry } from './plans.server';
import { GENERATE_QUEUE, WAKE_CHANNEL, errors, generationConfig, holdExpiry, userPlan } from './rules.server';

// A run is one press of Start: it owns one result row per topic, each with its own credit hold
// (ledger holdKey) and its own `generate-item` job. The form and the API both start one through
// startRunFor; what happens to each item next is in README.md beside this file.

export type StartedRun = { runId: string; resultIds: string[]; credits: number; total: number };

/** Settings kept on the run and on each result's metadata (no keys, no prompts). */
function runSettings(input: GenerationInput): Record<string, unknown> {
  const { prompts: _p, replicateApiKey: _k, rows: _r, ...settings } = input as GenerationInput & { replicateApiKey?: string };
  // Kept only when asked for: a one-step run's settings stay as they were.
  if (!('planFirst' in settings) || !settings.planFirst) delete (settings as { planFirst?: boolean }).planFirst;
  return settings;
}

/** The checks a run passes before anything is reserved: model, topics, plan, provider keys. Throws GenerationError. */
async function admissible(userId: string, input: GenerationInput, db: Db) {
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
  return { model, embed: Boolean(embed) };
}

/**
 * Starts a run: checks the plan and the provider keys, then in ONE transaction creates the run,
 * one result row per topic, one hold per item (all or nothing) and the jobs (one batch insert),
 * and wakes the workers of every process on commit. Throws GenerationError.
 */
export async function startRun(userId: string, input: GenerationInput, db: Db = sql): Promise<StartedRun> {
  const { model, embed } = await admissible(userId, input, db);
  const topics = input.prompts;
  const perItem = runCost(model, 1, embed);
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
      INSERT INTO generation_runs (user_id, type, model, settings, total, quality_gate)
      VALUES (${userId}, ${input.type}, ${model.id}, ${tx.json(settings as never)}, ${topics.length},
        ${input.type === 'text' && input.qualityGate === true})
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
    const planFirst = isPlanFirst(settings);
    // A plan waits for its owner's review: its hold is kept until the post is written or dropped.
    const until = planFirst ? planHoldExpiry() : holdExpiry(rows.length);
    const items: ReserveItem[] = rows.map((r) => ({ key: holdKey(r.id, 1), amount: perItem, expiresAt: until }));
    try {
      await reserve(userId, items, tx);
    } catch (err) {
      if (err instanceof LedgerError && err.code === 'insufficient_credits') throw errors.insufficientCredits();
      throw err;
    }
    if (planFirst)
      await createPlanRows(
        userId,
        rows.map((r) => r.id),
        tx,
      );
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

/** A run's item count and credits, counted as the form's usage line counts them (0 for an unknown model). */
export function quoteRun(input: GenerationInput): { count: number; cost: number } {
  const model = findModel(input.model);
  const embed = input.type === 'text' && (input as TextGenerationInput).embedImage;
  return { count: input.prompts.length, cost: model ? runCost(model, input.prompts.length, Boolean(embed)) : 0 };
}

/**
 * What Start would do, without doing it (the confirm step of the form without JavaScript): the same
 * checks as a start (an entered image-provider key is saved first, as a start saves it), then its quote.
 */
export async function previewRunFor(userId: string, input: GenerationInput, db: Db = sql): Promise<{ count: number; cost: number }> {
  if (input.replicateApiKey) await saveApiKeys(userId, { replicateApiKey: input.replicateApiKey }, db);
  await admissible(userId, input, db);
  return quoteRun(input);
}

/** What a start request brings beside the run's fields. */
export type StartEntries = {
  /** The CSV draft a form upload stored (its id): its per-row columns go with the topics. */
  draftId?: string | null;
};

/** Where the run's transaction happens: by default its own; the API gives its idempotency's. */
export type StartWithin<R> = (start: (db: Db) => Promise<StartedRun>) => Promise<R>;

/**
 * The one way a run starts, for the workspace form and the API: an image-provider key entered with
 * the request is saved first (on its own, so a refused run keeps it), a CSV draft's rows join the
 * topics, then the run starts — in `within`'s transaction when given (the API's Idempotency-Key
 * commits with the run), else in its own.
 */
export async function startRunFor<R = StartedRun>(
  userId: string,
  input: GenerationInput,
  entries: StartEntries = {},
  within: StartWithin<R> = (start) => start(sql) as Promise<R>,
): Promise<R> {
  if (input.replicateApiKey) await saveApiKeys(userId, { replicateApiKey: input.replicateApiKey });
  const rows = entries.draftId ? (await loadTopicDraft(userId, entries.draftId))?.rows : undefined;
  const withRows = rows ? { ...input, rows } : input;
  return within((db) => startRun(userId, withRows, db));
}
