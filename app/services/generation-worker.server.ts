import crypto from 'node:crypto';
import { sql, transaction, type Db } from '../../db/client';
import { imageDefaults } from '~/catalogue';
import { getLogger } from '~/utils/logger.server';
import { env } from '~/utils/env.server';
import { isDatabaseUnavailable } from '~/utils/db-unavailable.server';
import { briefOf, type TopicBrief } from '~/utils/csv-file';
import type { FailureParams, GenerationFailure } from '~/utils/generation-errors';
import { seoWithFallbacks, splitSeoBlock, type SeoFields } from '~/utils/seo-fields';
import { providerKey } from './api-keys.server';
import { countText, SEARCH_TEXT_MAX } from './results.server';
import { getRunProgress } from './generation.server';
import { leaseHoldExpiry, WAKE_CHANNEL } from './generation-rules.server';
import { extendHolds, holdKey, LedgerError, settleHolds, type HoldOutcome } from './ledger.server';
import { resultFinished, wantsResultEvents } from './webhooks.server';
import { linkWhenRunEnds } from './internal-links.server';
import {
  buildImagePrompt,
  generateImages,
  htmlToText,
  looksNonEnglish,
  markdownToArticle,
  ProviderError,
  requestArticle,
  sanitizeArticle,
  translateToEnglish,
  type ImageBytes,
  type ImageSettings,
  type TextSettings,
} from './providers.server';

// One item of a run, from a claimed job to its final state. Every write is conditional on the
// item still being `processing` in the same attempt, and the hold is posted or voided (through the
// ledger service, like every ledger call) in the same transaction as the row's final state, so a job delivered twice, a late worker, a cancel or a
// crash between the two can never change anything twice.

/** A worker claimed the item's current attempt this many times: beyond it, it ends failed (crash loop). */
export const MAX_DELIVERIES = 3;

export type ClaimedItem = {
  jobId: string;
  resultId: string;
  userId: string;
  attempt: number;
  /** False when the item is not processing in that attempt, or another worker holds it. */
  leased: boolean;
  deliveries: number;
  /** The lease taken by the claim (seconds); the heartbeat renews it and the hold with it. */
  leaseSeconds?: number;
  /** The item's row as the claim read it, with whether its hold was renewed (still open). */
  row?: ItemRow & { held: boolean };
};

/** The key to call a provider with, for a user (api-keys' providerKey, or a memo of it). */
export type KeyLookup = (userId: string, provider: 'openrouter' | 'replicate') => Promise<string | null>;

export type ProcessOptions = {
  keyOf?: KeyLookup;
  /**
   * Called once the provider has answered (or failed): only the conversion and booking are left.
   * The work waits for the promise it may return (the loop refills the slot first).
   */
  onAnswered?: () => Promise<void> | void;
  /**
   * Resolves when the item may call its provider (the loop's slot: a claimed item may wait next in
   * line); rejects with SlotWithdrawn when it must not (canceled while waiting, or the worker stops).
   */
  slot?: () => Promise<void>;
};

/** The item was taken back before it reached its provider: nothing to book. */
export class SlotWithdrawn extends Error {}

/**
 * The database failed the item's work (lost connection, restart, timeout): the item was handed
 * back, its hold kept, for a worker to take it up again once the database answers. Not a failure
 * of the item: its job must stay active, for the lease to bring it back.
 */
export class HandedBack extends Error {
  constructor(readonly cause: unknown) {
    super('generation item handed back: the database failed');
  }
}

// SQLSTATEs of a transaction the database gave up on for reasons of its own, not of the query:
// serialization failure, deadlock, lock not available, statement timeout or cancel.
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014']);

/** True when err is the database's or the connection's fault, not the item's: worth doing again. */
export function isInfrastructureError(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || code.startsWith('08'));
}

/** How long an item's booking keeps trying while the database is away, before its lease takes over. */
const BOOKING_RETRY_MS = 60_000;
const BOOKING_RETRY_MAX_DELAY_MS = 2000;

/**
 * Runs a write of the item's end, again and again (backoff up to 2 s) while the database fails
 * it, for BOOKING_RETRY_MS at most: the provider's answer is not thrown away for a blip. Every
 * such write is conditional on the item still being processing in its attempt, so a write that
 * did commit before its connection dropped is not done twice.
 */
async function whileDatabaseRecovers<T>(item: Pick<ClaimedItem, 'resultId'>, write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + BOOKING_RETRY_MS;
  for (let delay = 100, tries = 1; ; delay = Math.min(2 * delay, BOOKING_RETRY_MAX_DELAY_MS), tries++) {
    try {
      return await write();
    } catch (err) {
      if (!isInfrastructureError(err) || Date.now() + delay > deadline) throw err;
      if (tries === 1)
        getLogger().warn({ err: String(err), resultId: item.resultId }, 'generation: the database failed a booking; trying again');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * Gives the item back after the database failed its work: its lease ends now (a worker's reaper
 * puts its job back in the queue), its hold stays open, and this delivery is not counted against
 * the item (it did not crash a worker). Throws HandedBack for the loop to leave the job active.
 */
async function handBack(item: Pick<ClaimedItem, 'resultId' | 'attempt'>, cause: unknown, db: Db): Promise<never> {
  getLogger().warn({ err: String(cause), resultId: item.resultId }, 'generation: the database failed an item; handing it back');
  await whileDatabaseRecovers(
    item,
    () => db`
      UPDATE generation_results SET lease_until = now(), deliveries = greatest(deliveries - 1, 0)
      WHERE id = ${item.resultId} AND attempt = ${item.attempt} AND status = 'processing'`,
  ).catch(() => {}); // still down: the lease runs out by itself
  throw new HandedBack(cause);
}

export type ItemOutcome = 'completed' | 'failed' | 'skipped';

export type ItemRow = {
  id: string;
  type: 'text' | 'image';
  prompt: string;
  model: string;
  settings: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

/**
 * This process's id in the wake-ups it sends when an item ends (a freed per-user slot may let
 * another process claim): its own loop has already woken itself and ignores the echo.
 */
export const WORKER_ID = `worker:${crypto.randomUUID()}`;

/**
 * Why an item failed, as stored: the code pages and the API translate (utils/generation-errors),
 * its parameters, and an English text for operators reading the table (never shown to a user).
 */
export type ItemFailure = { code: GenerationFailure; params?: FailureParams; text: string };

const INTERRUPTED: ItemFailure = { code: 'interrupted', text: 'The worker stopped while generating this item.' };
/** The item's hold was voided by the sweeper (the work was abandoned too long): it is not charged. */
export const HOLD_GONE: ItemFailure = { code: 'hold_expired', text: 'This item took too long and was stopped; no credits were charged.' };

/** An item that failed for a reason of ours (not the provider's, not the database's). */
export const GENERATION_FAILED: ItemFailure = { code: 'internal', text: 'Generation failed. Please try again.' };

/** A provider's failure as stored: its message, for operators, stays in English. */
function providerFailure(err: ProviderError): ItemFailure {
  return { code: err.code, params: err.params, text: err.message.slice(0, 1000) };
}

/** Thrown into an item's work when its hold is gone. */
class HoldGone extends Error {}

/** Generates one claimed item and books its outcome. Never throws for provider failures. */
export async function processItem(item: ClaimedItem, opts: ProcessOptions = {}, db: Db = sql): Promise<ItemOutcome> {
  const outcome = await generateItem(item, opts, db);
  if (outcome !== 'skipped') await itemEnded(item, db);
  return outcome;
}

/** Marks the item failed with the failure's code and voids its hold (if still ours). */
export async function finishFailed(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  failure: ItemFailure,
  db: Db = sql,
): Promise<boolean> {
  const ended = await failItem(item, failure, db);
  if (ended) await itemEnded(item, db);
  return ended;
}

/**
 * After an item's end is committed: the run it ended may now be linked (issue 26). The item is
 * booked whatever happens here; a failed enqueue only leaves the run for the user to link.
 */
async function itemEnded(item: Pick<ClaimedItem, 'resultId' | 'userId'>, db: Db): Promise<void> {
  await linkWhenRunEnds(item.userId, { resultId: item.resultId }, db).catch((err) =>
    getLogger().warn({ err: String(err), resultId: item.resultId }, 'generation: the run could not be queued for linking'),
  );
}

async function generateItem(item: ClaimedItem, opts: ProcessOptions, db: Db): Promise<ItemOutcome> {
  if (!item.leased) return 'skipped';
  if (item.deliveries > MAX_DELIVERIES) {
    return (await whileDatabaseRecovers(item, () => failItem(item, INTERRUPTED, db))) ? 'failed' : 'skipped';
  }
  const leaseSeconds = item.leaseSeconds ?? env.GENERATION_LEASE_SECONDS;
  // A hold already swept (the item waited or was abandoned too long) ends the item failed and
  // uncharged. The claim usually brings the row; otherwise it is read with the hold's renewal.
  const row =
    item.row ??
    (await readRow(item, leaseSeconds, db).catch((err) => (isInfrastructureError(err) ? handBack(item, err, db) : Promise.reject(err))));
  if (!row) return 'skipped';
  if (!row.held) return (await whileDatabaseRecovers(item, () => failItem(item, HOLD_GONE, db))) ? 'failed' : 'skipped';

  // The heartbeat runs until the item is booked: it keeps the lease and the hold while a booking
  // waits for the database to come back.
  const heartbeat = startHeartbeat(item, leaseSeconds, db);
  try {
    const output = await generateOutput(item, row, opts, heartbeat.gone, db);
    if (!('failure' in output)) return await whileDatabaseRecovers(item, () => finishCompleted(item, output, db));
    const ended = await whileDatabaseRecovers(item, () => failItem(item, output.failure, db));
    return ended ? 'failed' : 'skipped';
  } catch (err) {
    if (err instanceof SlotWithdrawn) return 'skipped';
    if (err instanceof HandedBack) throw err;
    if (isInfrastructureError(err)) return handBack(item, err, db);
    throw err;
  } finally {
    heartbeat.stop();
  }
}

/**
 * The provider's work for the item: its output, or the failure to book (a provider's or the
 * content's). A database failure meanwhile hands the item back (HandedBack); a withdrawn slot
 * throws SlotWithdrawn.
 */
async function generateOutput(
  item: ClaimedItem,
  row: ItemRow,
  opts: ProcessOptions,
  gone: Promise<never>,
  db: Db,
): Promise<Output | { failure: ItemFailure }> {
  const keyOf: KeyLookup = opts.keyOf ?? ((userId, provider) => providerKey(userId, provider, db));
  try {
    if (opts.slot) {
      // The key is looked up while the item waits, so a freed slot sends it at once.
      keyOf(item.userId, row.type === 'text' ? 'openrouter' : 'replicate').catch(() => {});
      await Promise.race([opts.slot(), gone]);
    }
    const answered = async () => void (await opts.onAnswered?.());
    const work = row.type === 'text' ? runText(item, row, keyOf, answered) : runImage(item, row, keyOf, answered);
    work.catch(() => {}); // abandoned when the hold goes
    return await Promise.race([work, gone]);
  } catch (err) {
    void opts.onAnswered?.();
    if (err instanceof SlotWithdrawn) throw err;
    if (err instanceof HoldGone) return { failure: HOLD_GONE };
    if (err instanceof ProviderError) return { failure: providerFailure(err) };
    if (isInfrastructureError(err)) return handBack(item, err, db);
    // A fault of ours: logged with its stack; the user reads a plain sentence, never its text.
    getLogger().error({ err, resultId: item.resultId }, 'generation item error');
    return { failure: GENERATION_FAILED };
  }
}

/** The item's row, if still processing in this attempt, and the renewal of its hold with the lease. */
async function readRow(item: ClaimedItem, leaseSeconds: number, db: Db): Promise<(ItemRow & { held: boolean }) | undefined> {
  const [row] = await db<ItemRow[]>`
    SELECT r.id, r.type, r.prompt, r.model, g.settings, r.metadata
    FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.id = ${item.resultId} AND r.user_id = ${item.userId} AND r.attempt = ${item.attempt} AND r.status = 'processing'`;
  if (!row) return undefined;
  return { ...row, held: await renewHold(item, leaseSeconds, db) };
}

/** Moves the item's hold on with its lease; false when the hold is no longer open (swept). */
async function renewHold(item: Pick<ClaimedItem, 'resultId' | 'attempt'>, leaseSeconds: number, db: Db): Promise<boolean> {
  const key = holdKey(item.resultId, item.attempt);
  return (await extendHolds([key], leaseHoldExpiry(leaseSeconds), db)).includes(key);
}

/**
 * Renews the item's lease and its hold while the provider works, every third of a lease. `gone`
 * rejects when the ledger says the hold is no longer open (swept): the item must stop and end
 * failed, uncharged.
 */
function startHeartbeat(item: ClaimedItem, leaseSeconds: number, db: Db) {
  const every = Math.max(250, (leaseSeconds * 1000) / 3);
  let signalGone: (err: HoldGone) => void = () => {};
  const gone = new Promise<never>((_, reject) => (signalGone = reject));
  gone.catch(() => {});
  const timer = setInterval(() => {
    void (async () => {
      await db`
        UPDATE generation_results SET lease_until = now() + make_interval(secs => ${leaseSeconds})
        WHERE id = ${item.resultId} AND attempt = ${item.attempt} AND status = 'processing'`;
      if (!(await renewHold(item, leaseSeconds, db))) {
        clearInterval(timer);
        signalGone(new HoldGone());
      }
    })().catch((err) => getLogger().warn({ err: String(err) }, 'generation heartbeat failed'));
  }, every);
  timer.unref();
  return { gone, stop: () => clearInterval(timer) };
}

type Output = {
  title: string;
  /** The article's plain text (search and counts), when already computed. */
  text?: string;
  content: string;
  metadata: Record<string, unknown>;
  images: (ImageBytes & { id: string; idx: number })[];
  /** The CSV row's keywords (searchable). */
  keywords?: string;
  /** A text result's SEO fields (generated with the article, or derived). */
  seo?: SeoFields;
};

function imageSettingsOf(settings: Record<string, unknown>, model: string, numOutputs: number): ImageSettings {
  return {
    model,
    aspectRatio: String(settings.aspectRatio ?? imageDefaults.aspectRatio),
    stylePreset: String(settings.stylePreset ?? imageDefaults.stylePreset),
    guidanceScale: Number(settings.guidanceScale ?? imageDefaults.guidanceScale),
    numOutputs,
  };
}

async function requireKey(keyOf: KeyLookup, userId: string, provider: 'openrouter' | 'replicate'): Promise<string> {
  const key = await keyOf(userId, provider);
  if (key) return key;
  throw provider === 'openrouter'
    ? new ProviderError('no_text_key', 'No API key for the text provider.', false)
    : new ProviderError('no_image_key', 'No API key for the image provider.', false);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The item's own CSV columns (title, keywords, instructions), kept on its metadata by startRun. */
function briefOfRow(row: ItemRow): TopicBrief | null {
  const brief = row.metadata?.brief;
  return brief && typeof brief === 'object' ? briefOf(brief as TopicBrief) : null;
}

/** `answered` is awaited once the providers are done, before the CPU work of converting. */
async function runText(item: ClaimedItem, row: ItemRow, keyOf: KeyLookup, answered: () => Promise<void>): Promise<Output> {
  const key = await requireKey(keyOf, item.userId, 'openrouter');
  const settings = { ...row.settings, model: row.model } as unknown as TextSettings & { embedImage?: boolean };
  const brief = briefOfRow(row);
  const answer = await requestArticle(key, row.prompt, settings, brief);
  // The SEO fields the model wrote after the article (same call); the rest derived below.
  const { article: markdown, seo: seoGiven } = splitSeoBlock(answer.text);
  const convert = () => {
    const generated = markdownToArticle(markdown, row.prompt);
    // A title asked for in the CSV is the post's title, whatever heading the model wrote.
    return brief?.title ? { ...generated, title: brief.title } : generated;
  };
  const images: Output['images'] = [];
  let article: ReturnType<typeof convert>;
  let html: string;
  if (settings.embedImage) {
    article = convert(); // the image is drawn from the title
    const replicateKey = await requireKey(keyOf, item.userId, 'replicate');
    const imageModel = String(row.settings.imageModel ?? imageDefaults.model);
    const [image] = await generateImages(replicateKey, `${article.title}`, imageSettingsOf(row.settings, imageModel, 1));
    await answered();
    const id = crypto.randomUUID();
    images.push({ ...image!, id, idx: 0 });
    html = sanitizeArticle(`<figure><img src="/images/${id}" alt="${escapeHtml(article.title)}"></figure>`) + article.html;
  } else {
    await answered();
    article = convert();
    html = article.html;
  }
  const text = htmlToText(html);
  return {
    title: article.title,
    content: html,
    text,
    seo: seoWithFallbacks(seoGiven, { title: article.title, html: article.html, topic: row.prompt, keywords: brief?.keywords }),
    metadata: { originalPrompt: row.prompt, images: images.map((i) => i.id), usage: answer.usage ?? null, ...countText(text) },
    images,
    keywords: brief?.keywords,
  };
}

async function runImage(item: ClaimedItem, row: ItemRow, keyOf: KeyLookup, answered: () => Promise<void>): Promise<Output> {
  const key = await requireKey(keyOf, item.userId, 'replicate');
  let prompt = row.prompt;
  let translatedPrompt: string | null = null;
  if (looksNonEnglish(row.prompt)) {
    const textKey = await keyOf(item.userId, 'openrouter');
    if (textKey) {
      try {
        translatedPrompt = await translateToEnglish(textKey, row.prompt);
        prompt = translatedPrompt;
      } catch (err) {
        getLogger().warn({ err: String(err), resultId: item.resultId }, 'prompt translation failed; using the original');
      }
    }
  }
  const numOutputs = Math.min(4, Math.max(1, Number(row.settings.numOutputs ?? 1)));
  const brief = briefOfRow(row);
  const list = await generateImages(key, buildImagePrompt(prompt, brief), imageSettingsOf(row.settings, row.model, numOutputs));
  await answered();
  const images = list.map((img, idx) => ({ ...img, id: crypto.randomUUID(), idx }));
  return {
    title: (brief?.title ?? row.prompt).slice(0, 300),
    content: `/images/${images[0]!.id}`,
    metadata: { originalPrompt: row.prompt, translatedPrompt, images: images.map((i) => i.id) },
    images,
    keywords: brief?.keywords,
  };
}

class Gone extends Error {}

// A SQL fragment built with the same db (postgres.js PendingQuery).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fragment = any;

const isHoldGone = (err: unknown) => err instanceof LedgerError && err.code === 'already_resolved';

/**
 * The item's final state and its hold's outcome in one transaction: the row changes only if it is
 * still processing in this attempt, and the ledger settles the hold only for a row that changed.
 */
/** A finished row: its run, and a failure's code and English text (the result.failed event carries both). */
type FinishedRow = { id: string; runId: string; errorCode: string | null; error: string | null };

async function finishRow(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome | null,
  db: Db,
): Promise<FinishedRow | null> {
  const update = (d: Db) => d<FinishedRow[]>`
    UPDATE generation_results SET ${set(d)}, lease_until = NULL, updated_at = now()
    WHERE id = ${item.resultId} AND user_id = ${item.userId} AND attempt = ${item.attempt} AND status = 'processing'
    RETURNING id, run_id AS "runId", error_code AS "errorCode", error, pg_notify(${WAKE_CHANNEL}, ${WORKER_ID}) AS woken`;
  if (!outcome) return (await update(db))[0] ?? null;
  return transaction(db, async (tx) => {
    const [done] = await update(tx);
    if (!done) return null;
    await settleHolds([holdKey(item.resultId, item.attempt)], outcome, tx);
    return done;
  });
}

type SetFragment = (d: Db) => Fragment;

/**
 * The final state, its hold's outcome and the webhook events it causes, in one transaction
 * (`set` is built on that transaction). An owner with no endpoint for these events (most) keeps
 * the single statement: no transaction holds the item's and the ledger's locks across round trips.
 * Skipped when the item was no longer ours.
 */
async function finishInTransaction(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome | null,
  status: 'completed' | 'failed',
  db: Db,
): Promise<ItemOutcome> {
  const inTransaction = 'savepoint' in db;
  if (!inTransaction && !(await wantsResultEvents(item.userId, status, db))) {
    return (await finishRow(item, set, outcome, db)) ? status : 'skipped';
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(db, async (tx) => {
        const done = await finishRow(item, set, outcome, tx);
        if (!done) return 'skipped';
        const failure = { errorCode: done.errorCode, error: done.error };
        await resultFinished({ ...item, runId: done.runId, status, ...failure }, () => getRunProgress(item.userId, done.runId, tx), tx);
        return status;
      });
    } catch (err) {
      // A deadlock victim (with a heartbeat or another item's booking) was rolled back whole: again.
      if (inTransaction || attempt >= 3 || (err as { code?: string })?.code !== '40P01') throw err;
    }
  }
}

/**
 * Books the outcome. A hold the sweeper already voided (ledger `already_resolved`): the item was
 * not paid for, so it never completes: it ends failed (HOLD_GONE), uncharged.
 */
async function finish(
  item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>,
  set: SetFragment,
  outcome: HoldOutcome,
  db: Db,
): Promise<ItemOutcome> {
  try {
    return await finishInTransaction(item, set, outcome, outcome === 'post' ? 'completed' : 'failed', db);
  } catch (err) {
    if (!isHoldGone(err)) throw err;
    getLogger().warn({ key: holdKey(item.resultId, item.attempt), outcome }, 'generation: hold was already resolved');
    const final: SetFragment = outcome === 'post' ? failedAs(HOLD_GONE) : set;
    return finishInTransaction(item, final, null, 'failed', db);
  }
}

/** Stores the output and posts the hold, atomically, if the item is still ours to finish. */
async function finishCompleted(item: ClaimedItem, out: Output, db: Db): Promise<ItemOutcome> {
  const search = [
    out.title,
    (out.metadata.originalPrompt as string) ?? '',
    (out.metadata.translatedPrompt as string) ?? '',
    out.keywords ?? '',
    out.text ?? htmlToText(out.content),
  ]
    .join('\n')
    .slice(0, SEARCH_TEXT_MAX);
  const set: SetFragment = (d) => d`status = 'completed', title = ${out.title}, content = ${out.content},
    error = NULL, error_code = NULL, error_params = NULL,
    metadata = metadata || ${d.json(out.metadata as never)}, search_text = ${search}, completed_at = now(),
    seo_description = ${out.seo?.metaDescription ?? null}, seo_slug = ${out.seo?.slug ?? null}, seo_keyword = ${out.seo?.focusKeyword ?? null}`;
  if (out.images.length === 0) return finish(item, set, 'post', db);
  try {
    return await transaction(db, async (tx) => {
      for (const img of out.images) {
        await tx`
          INSERT INTO generation_images (id, user_id, result_id, attempt, idx, content_type, bytes)
          VALUES (${img.id}, ${item.userId}, ${item.resultId}, ${item.attempt}, ${img.idx}, ${img.contentType}, ${img.bytes})`;
      }
      if ((await finishInTransaction(item, set, 'post', 'completed', tx)) === 'skipped') throw new Gone();
      return 'completed' as const;
    });
  } catch (err) {
    if (err instanceof Gone) return 'skipped';
    // The hold was swept: the images are rolled back with the transaction, the item ends failed.
    if (isHoldGone(err)) return finish(item, failedAs(HOLD_GONE), 'void', db);
    throw err;
  }
}

/** The columns of a failed item: its code and parameters for the reader, its text for operators. */
function failedAs(failure: ItemFailure): SetFragment {
  return (d) =>
    d`status = 'failed', error = ${failure.text}, error_code = ${failure.code}, error_params = ${failure.params ? d.json(failure.params) : null}`;
}

async function failItem(item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>, failure: ItemFailure, db: Db): Promise<boolean> {
  return (await finish(item, failedAs(failure), 'void', db)) !== 'skipped';
}
