import crypto from 'node:crypto';
import { sql, transaction, type Db } from '../../db/client';
import { imageDefaults } from '~/catalogue';
import { getLogger } from '~/utils/logger.server';
import { env } from '~/utils/env.server';
import { providerKey } from './api-keys.server';
import { countText, SEARCH_TEXT_MAX } from './results.server';
import { holdKey, keepHoldsAlive, holdExpiry, WAKE_CHANNEL } from './generation.server';
import {
  generateArticle,
  generateImages,
  htmlToText,
  looksNonEnglish,
  ProviderError,
  sanitizeArticle,
  translateToEnglish,
  type ImageBytes,
  type ImageSettings,
  type TextSettings,
} from './providers.server';

// One item of a run, from a claimed job to its final state. Every write is conditional on the
// item still being `processing` in the same attempt, and the hold is posted or voided in the same
// transaction as the row's final state, so a job delivered twice, a late worker, a cancel or a
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
};

export type ItemOutcome = 'completed' | 'failed' | 'skipped';

type ItemRow = {
  id: string;
  type: 'text' | 'image';
  prompt: string;
  model: string;
  settings: Record<string, unknown>;
  metadata: Record<string, unknown>;
};

const INTERRUPTED = 'The worker stopped while generating this item.';

/** Generates one claimed item and books its outcome. Never throws for provider failures. */
export async function processItem(item: ClaimedItem, db: Db = sql): Promise<ItemOutcome> {
  if (!item.leased) return 'skipped';
  if (item.deliveries > MAX_DELIVERIES) {
    return (await finishFailed(item, INTERRUPTED, db)) ? 'failed' : 'skipped';
  }
  const [row] = await db<ItemRow[]>`
    SELECT r.id, r.type, r.prompt, r.model, g.settings, r.metadata
    FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.id = ${item.resultId} AND r.user_id = ${item.userId} AND r.attempt = ${item.attempt} AND r.status = 'processing'`;
  if (!row) return 'skipped';

  const heartbeat = startHeartbeat(item, db);
  try {
    const output = row.type === 'text' ? await runText(item, row) : await runImage(item, row);
    return (await finishCompleted(item, output, db)) ? 'completed' : 'skipped';
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : (err as Error)?.message || 'Generation failed';
    if (!(err instanceof ProviderError)) getLogger().warn({ err: String(err), resultId: item.resultId }, 'generation item error');
    return (await finishFailed(item, message.slice(0, 1000), db)) ? 'failed' : 'skipped';
  } finally {
    heartbeat.stop();
  }
}

/** Extends the item's lease (and its hold) while the provider works. */
function startHeartbeat(item: ClaimedItem, db: Db) {
  const every = Math.max(1000, (env.GENERATION_LEASE_SECONDS * 1000) / 3);
  const timer = setInterval(() => {
    void (async () => {
      await db`
        UPDATE generation_results SET lease_until = now() + make_interval(secs => ${env.GENERATION_LEASE_SECONDS})
        WHERE id = ${item.resultId} AND attempt = ${item.attempt} AND status = 'processing'`;
      await keepHoldsAlive([holdKey(item.resultId, item.attempt)], holdExpiry(1), db);
    })().catch((err) => getLogger().warn({ err: String(err) }, 'generation heartbeat failed'));
  }, every);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

type Output = {
  title: string;
  /** The article's plain text (search and counts), when already computed. */
  text?: string;
  content: string;
  metadata: Record<string, unknown>;
  images: (ImageBytes & { id: string; idx: number })[];
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

async function requireKey(userId: string, provider: 'openrouter' | 'replicate'): Promise<string> {
  const key = await providerKey(userId, provider);
  if (!key) throw new ProviderError(provider === 'openrouter' ? 'No API key for the text provider.' : 'No API key for the image provider.', false);
  return key;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

async function runText(item: ClaimedItem, row: ItemRow): Promise<Output> {
  const key = await requireKey(item.userId, 'openrouter');
  const settings = { ...row.settings, model: row.model } as unknown as TextSettings & { embedImage?: boolean };
  const article = await generateArticle(key, row.prompt, settings);
  const images: Output['images'] = [];
  let html = article.html;
  if (settings.embedImage) {
    const replicateKey = await requireKey(item.userId, 'replicate');
    const imageModel = String(row.settings.imageModel ?? imageDefaults.model);
    const [image] = await generateImages(replicateKey, `${article.title}`, imageSettingsOf(row.settings, imageModel, 1));
    const id = crypto.randomUUID();
    images.push({ ...image!, id, idx: 0 });
    html = sanitizeArticle(`<figure><img src="/images/${id}" alt="${escapeHtml(article.title)}"></figure>`) + html;
  }
  const text = htmlToText(html);
  return {
    title: article.title,
    content: html,
    text,
    metadata: { originalPrompt: row.prompt, images: images.map((i) => i.id), usage: article.usage ?? null, ...countText(text) },
    images,
  };
}

async function runImage(item: ClaimedItem, row: ItemRow): Promise<Output> {
  const key = await requireKey(item.userId, 'replicate');
  let prompt = row.prompt;
  let translatedPrompt: string | null = null;
  if (looksNonEnglish(row.prompt)) {
    const textKey = await providerKey(item.userId, 'openrouter');
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
  const list = await generateImages(key, prompt, imageSettingsOf(row.settings, row.model, numOutputs));
  const images = list.map((img, idx) => ({ ...img, id: crypto.randomUUID(), idx }));
  return {
    title: row.prompt.slice(0, 300),
    content: `/images/${images[0]!.id}`,
    metadata: { originalPrompt: row.prompt, translatedPrompt, images: images.map((i) => i.id) },
    images,
  };
}

class Gone extends Error {}

// A SQL fragment built with the same db (postgres.js PendingQuery).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fragment = any;

/**
 * The item's final state and its hold's outcome in ONE statement (atomic without a transaction):
 * the row changes only if it is still processing in this attempt, and the ledger is called only
 * for a row that changed. A hold the sweeper already voided: the row is finished without it.
 */
async function finish(item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>, set: Fragment, outcome: 'post' | 'void', db: Db): Promise<boolean> {
  const statement = (withLedger: boolean) => db<{ id: string }[]>`
    WITH done AS (
      UPDATE generation_results SET ${set}, lease_until = NULL, updated_at = now()
      WHERE id = ${item.resultId} AND user_id = ${item.userId} AND attempt = ${item.attempt} AND status = 'processing'
      RETURNING id
    )
    SELECT d.id, pg_notify(${WAKE_CHANNEL}, '') AS woken
      ${withLedger ? db`, (SELECT count(*) FROM ledger_resolve('result:' || d.id || ':attempt:' || ${item.attempt}, ${outcome})) AS booked` : db``}
    FROM done d`;
  try {
    return (await statement(true)).length > 0;
  } catch (err) {
    if ((err as { code?: string }).code !== 'LG002') throw err;
    getLogger().warn({ key: holdKey(item.resultId, item.attempt), outcome }, 'generation: hold was already resolved');
    return (await statement(false)).length > 0;
  }
}

/** Stores the output and posts the hold, atomically, if the item is still ours to finish. */
async function finishCompleted(item: ClaimedItem, out: Output, db: Db): Promise<boolean> {
  const search = [out.title, (out.metadata.originalPrompt as string) ?? '', (out.metadata.translatedPrompt as string) ?? '', out.text ?? htmlToText(out.content)]
    .join('\n')
    .slice(0, SEARCH_TEXT_MAX);
  const set = (d: Db) => d`status = 'completed', title = ${out.title}, content = ${out.content}, error = NULL,
    metadata = metadata || ${d.json(out.metadata as never)}, search_text = ${search}, completed_at = now()`;
  if (out.images.length === 0) return finish(item, set(db), 'post', db);
  try {
    return await transaction(db, async (tx) => {
      for (const img of out.images) {
        await tx`
          INSERT INTO generation_images (id, user_id, result_id, attempt, idx, content_type, bytes)
          VALUES (${img.id}, ${item.userId}, ${item.resultId}, ${item.attempt}, ${img.idx}, ${img.contentType}, ${img.bytes})`;
      }
      const done = await tx.savepoint((sp) => finish(item, set(sp as unknown as Db), 'post', sp as unknown as Db));
      if (!done) throw new Gone();
      return true;
    });
  } catch (err) {
    if (err instanceof Gone) return false;
    throw err;
  }
}

/** Marks the item failed with the provider's message and voids its hold (if still ours). */
export async function finishFailed(item: Pick<ClaimedItem, 'resultId' | 'userId' | 'attempt'>, message: string, db: Db = sql): Promise<boolean> {
  return finish(item, db`status = 'failed', error = ${message}`, 'void', db);
}
