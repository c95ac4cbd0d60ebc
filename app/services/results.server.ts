import { PassThrough, Readable } from 'node:stream';
import yazl from 'yazl';
import { sql, transaction, type Db } from '../../db/client';
import { RESULTS_PAGE_SIZE } from '~/catalogue';
import { imageFileName, TEXT_RESULTS_FILE, ALL_RESULTS_ZIP, textFileName } from '~/utils/download-names';
import type { ResultsQuery } from '~/utils/generation-schema';
import { holdKey, settleHolds } from './ledger.server';
import { CANCELED_SIGNAL, errors, isUuid, WAKE_CHANNEL } from './generation/rules.server';
import { htmlToText, sanitizeArticle } from './providers.server';
import { keptLinksOf, type KeptLink } from './kept-links.server';
import { briefOf, type TopicBrief } from '~/utils/csv-file';
import { cleanSeo, seoWithFallbacks, type SeoFields } from '~/utils/seo-fields';
import { editedTitle } from '~/utils/title-heading';
import { retitleImageAlts } from '~/utils/wordpress-images';
import { env } from '~/runtime/env.server';
import type { FailureParams } from '~/utils/generation-errors';
import type { QualityReport } from '~/utils/quality/report';
import { recheckResult } from './quality/report.server';
import { NEEDS_REVIEW } from './quality/review.server';
import { getImage, queueObjectDeletions } from './images.server';
import { latestFixColumn } from './fixes/latest.server';
import type { ResultFixView } from '~/utils/quality/fixes';

// The results of generation, listed, read, edited, deleted and downloaded: every read and write is scoped to
// the owner; another user's id is "not found".

export type ResultStatus = 'processing' | 'planned' | 'completed' | 'failed' | 'canceled';

export type Result = {
  id: string;
  runId: string;
  position: number;
  type: 'text' | 'image';
  prompt: string;
  title: string | null;
  /** Sanitized HTML (text) or our own image URL `/images/{id}` (image); null until completed. */
  content: string | null;
  status: ResultStatus;
  /**
   * Why it failed (utils/generation-errors: pages and the API translate it); null otherwise, and
   * for failures stored before codes. The stored English text is for operators and never leaves.
   */
  errorCode: string | null;
  errorParams: FailureParams | null;
  model: string;
  metadata: {
    originalPrompt?: string;
    translatedPrompt?: string | null;
    /** Our URLs of every image of the result (image outputs, or the image embedded in a post). */
    imageUrls: string[];
    settings?: Record<string, unknown>;
    /** The topic's own CSV columns (title, keywords, instructions) that went into its prompt. */
    brief?: TopicBrief;
  };
  /**
   * A text result's SEO fields: generated with the article, edited by the user, or
   * (results made before, or a model that left one out) derived from its title and text. Null for images.
   */
  seo: (SeoFields & { stored: boolean }) | null;
  characterCount: number;
  wordCount: number;
  /** A completed text result's quality report (null: an image, not completed, or made before reports). */
  quality: QualityReport | null;
  /** When its owner approved it for a publish that holds posts that do not pass (null: not approved). */
  approvedAt: string | null;
  /** A completed text result's latest one-click fix (running, done or failed); null when none was asked for. */
  fix: ResultFixView | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
};

export type ResultsPage = {
  results: Result[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
};

type Row = {
  id: string;
  runId: string;
  position: number;
  type: 'text' | 'image';
  prompt: string;
  title: string | null;
  content: string | null;
  status: ResultStatus;
  errorCode: string | null;
  errorParams: FailureParams | null;
  model: string;
  metadata: Record<string, unknown>;
  settings: Record<string, unknown> | null;
  seoDescription: string | null;
  seoSlug: string | null;
  seoKeyword: string | null;
  seoTitle: string | null;
  quality: QualityReport | null;
  approvedAt: Date | null;
  fix: ResultFixView | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
};

const columns = (db: Db) => db`
  r.id, r.run_id AS "runId", r.position, r.type, r.prompt, r.title, r.content, r.status, r.model, r.metadata,
  r.error_code AS "errorCode", r.error_params AS "errorParams",
  g.settings, r.seo_description AS "seoDescription", r.seo_slug AS "seoSlug", r.seo_keyword AS "seoKeyword",
  r.seo_title AS "seoTitle", r.quality, r.approved_at AS "approvedAt", ${latestFixColumn(db)},
  r.created_at AS "createdAt", r.updated_at AS "updatedAt", r.completed_at AS "completedAt"`;

/** Characters and words of a text result's visible text (CJK characters count as words). */
export function countText(text: string): { characterCount: number; wordCount: number } {
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
  const words = text.replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu, ' ').match(/\S+/g)?.length ?? 0;
  return { characterCount: [...text].length, wordCount: words + cjk };
}

function toResult(r: Row): Result {
  const m = r.metadata ?? {};
  const images = Array.isArray(m.images) ? (m.images as string[]) : [];
  const brief = m.brief && typeof m.brief === 'object' ? briefOf(m.brief as TopicBrief) : null;
  const counts =
    typeof m.characterCount === 'number' && typeof m.wordCount === 'number'
      ? { characterCount: m.characterCount, wordCount: m.wordCount }
      : r.type === 'text' && r.content
        ? countText(htmlToText(r.content))
        : { characterCount: 0, wordCount: 0 };
  return {
    id: r.id,
    runId: r.runId,
    position: r.position,
    type: r.type,
    prompt: r.prompt,
    title: r.title,
    content: r.content,
    status: r.status,
    errorCode: r.errorCode,
    errorParams: r.errorParams,
    model: r.model,
    metadata: {
      originalPrompt: typeof m.originalPrompt === 'string' ? m.originalPrompt : r.prompt,
      translatedPrompt: typeof m.translatedPrompt === 'string' ? m.translatedPrompt : null,
      imageUrls: images.map((id) => `/images/${id}`),
      settings: r.settings ?? undefined,
      ...(brief ? { brief } : {}),
    },
    seo:
      r.type === 'text'
        ? {
            ...seoWithFallbacks(
              {
                metaDescription: r.seoDescription ?? '',
                slug: r.seoSlug ?? '',
                focusKeyword: r.seoKeyword ?? '',
                seoTitle: r.seoTitle ?? '',
              },
              { title: r.title ?? r.prompt, html: r.content ?? '', topic: r.prompt, keywords: brief?.keywords },
            ),
            stored: r.seoDescription !== null || r.seoSlug !== null || r.seoKeyword !== null || r.seoTitle !== null,
          }
        : null,
    ...counts,
    quality: r.type === 'text' && r.status === 'completed' ? (r.quality ?? null) : null,
    approvedAt: r.approvedAt?.toISOString() ?? null,
    fix: r.fix
      ? {
          ...r.fix,
          createdAt: new Date(r.fix.createdAt).toISOString(),
          finishedAt: r.fix.finishedAt ? new Date(r.fix.finishedAt).toISOString() : null,
        }
      : null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}

/** How much of a result is searchable: title, prompt and the start of the article. */
export const SEARCH_TEXT_MAX = 8000;

const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Counting stops here (the list's `total` is exact below it, a lower bound above it): the list
 * costs the same with 100 or 100,000 results. A page past it counts up to that page, so `totalPages`
 * always offers the next page. Searches count fewer (each match is checked against its text).
 */
export const RESULTS_COUNT_CAP = 10_000;
export const SEARCH_COUNT_CAP = 1_000;

/** The owner's results, newest run first and each run in topic order, filtered by type and search. */
export async function listResults(userId: string, query: Partial<ResultsQuery> = {}, db: Db = sql): Promise<ResultsPage> {
  const limit = Math.min(100, Math.max(1, Math.floor(query.limit ?? RESULTS_PAGE_SIZE)));
  const type = query.type === 'text' || query.type === 'image' ? query.type : null;
  const search = (query.search ?? '').trim().slice(0, 200);
  const review = reviewFilter(query.review, db);
  const requested = Math.max(1, Math.floor(query.page ?? 1));
  const at = async (page: number) => {
    const offset = (page - 1) * limit;
    const cap = Math.max(search ? SEARCH_COUNT_CAP : RESULTS_COUNT_CAP, offset + limit) + 1;
    const { ids, total } = search
      ? await searchPage(userId, type, search, offset, limit, cap, review, db)
      : await listPage(userId, type, offset, limit, cap, review, db);
    return { ids, total: Math.min(total, cap) };
  };
  let page = requested;
  let { ids, total } = await at(page);
  let totalPages = Math.max(1, Math.ceil(total / limit));
  if (page > totalPages) {
    page = totalPages;
    ({ ids, total } = await at(page));
    totalPages = Math.max(1, Math.ceil(total / limit));
  }
  return { results: await rowsOf(userId, ids, db), pagination: { page, limit, total, totalPages } };
}

type PageIds = { ids: string[]; total: number };

/** The review list's filter (none: every result). */
function reviewFilter(review: ResultsQuery['review'], db: Db) {
  if (review === 'needs') return db`AND ${NEEDS_REVIEW(db)}`;
  if (review === 'approved') return db`AND r.approved_at IS NOT NULL`;
  return db``;
}

/**
 * A page of the list: ids from the covering (user_id, [type,] created_at, position) INCLUDE (id)
 * index only (migration 015; a deep offset skips index entries, not rows), and the count stopped at `cap`.
 */

async function listPage(
  userId: string,
  type: string | null,
  offset: number,
  limit: number,
  cap: number,
  review: ReturnType<typeof reviewFilter>,
  db: Db,
): Promise<PageIds> {
  const where = db`r.user_id = ${userId} ${type ? db`AND r.type = ${type}` : db``} ${review}`;
  const rows = await db<{ id: string | null; total: number }[]>`
    SELECT (SELECT count(*)::int FROM (SELECT 1 FROM generation_results r WHERE ${where} LIMIT ${cap}) c) AS total, p.id
    FROM (SELECT 1) one LEFT JOIN (
      SELECT r.id FROM generation_results r WHERE ${where}
      ORDER BY r.created_at DESC, r.position ASC LIMIT ${limit} OFFSET ${offset}
    ) p ON true`;
  return { ids: rows.flatMap((r) => (r.id ? [r.id] : [])), total: rows[0]?.total ?? 0 };
}

/**
 * A page of a search. Up to `cap` matches are taken from the trigram index (only those rows'
 * texts are checked): fewer than `cap` → they are all the matches, counted exactly and paged in
 * memory. As many as `cap` (a common term) → the total is capped, and the page walks the date
 * index checking rows until it has the page (matches are dense, so that is short).
 */
async function searchPage(
  userId: string,
  type: string | null,
  search: string,
  offset: number,
  limit: number,
  cap: number,
  review: ReturnType<typeof reviewFilter>,
  db: Db,
): Promise<PageIds> {
  const pattern = likePattern(search);
  const rows = await db<{ id: string | null; total: number }[]>`
    WITH m AS MATERIALIZED (
      SELECT r.id, r.created_at, r.position FROM generation_results r
      WHERE r.user_id = ${userId} ${type ? db`AND r.type = ${type}` : db``} ${review} AND r.search_text ILIKE ${pattern}
      LIMIT ${cap}
    ), n AS (SELECT count(*)::int AS total FROM m)
    SELECT n.total, p.id FROM n LEFT JOIN (
      SELECT id FROM m WHERE (SELECT total FROM n) < ${cap} ORDER BY created_at DESC, position ASC LIMIT ${limit} OFFSET ${offset}
    ) p ON true`;
  const total = rows[0]?.total ?? 0;
  if (total < cap) return { ids: rows.flatMap((r) => (r.id ? [r.id] : [])), total };
  // Common term: walk the date index newest first, checking rows until the page is full. The
  // ordered subquery (OFFSET 0 keeps it apart) is the walk; with the filter beside the ORDER BY the
  // planner misjudges how many rows match and scans and sorts the whole table (1 s at 100,000).
  const page = await db<{ id: string }[]>`
    SELECT w.id FROM (
      SELECT r.id, r.search_text FROM generation_results r
      WHERE r.user_id = ${userId} ${type ? db`AND r.type = ${type}` : db``} ${review}
      ORDER BY r.created_at DESC, r.position ASC OFFSET 0
    ) w
    WHERE w.search_text ILIKE ${pattern} LIMIT ${limit} OFFSET ${offset}`;
  return { ids: page.map((r) => r.id), total };
}

/** The rows of a page, in the page's order. */
async function rowsOf(userId: string, ids: string[], db: Db): Promise<Result[]> {
  if (ids.length === 0) return [];
  const rows = await db<Row[]>`
    SELECT ${columns(db)} FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.user_id = ${userId} AND r.id = ANY(${ids}::uuid[])`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toResult(row)] : [];
  });
}

async function findRow(userId: string, id: string, db: Db): Promise<Row> {
  if (!isUuid(id)) throw errors.notFound();
  const [row] = await db<Row[]>`
    SELECT ${columns(db)} FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.id = ${id} AND r.user_id = ${userId}`;
  if (!row) throw errors.notFound();
  return row;
}

/** One of the owner's results. */
export async function getResult(userId: string, id: string, db: Db = sql): Promise<Result> {
  return toResult(await findRow(userId, id, db));
}

/**
 * Saves an edited text (sanitized again) and, when given, its title and SEO fields (cleaned; an
 * emptied SEO field falls back to its derived value on read); only completed text results. A leading
 * H1 in the text is the title (title-heading.ts), so the body never repeats it. Returns the result.
 */
export async function updateResultContent(
  userId: string,
  id: string,
  html: string,
  edit: (Partial<SeoFields> & { title?: string }) | null = null,
  db: Db = sql,
): Promise<Result> {
  const row = await findRow(userId, id, db);
  if (row.type !== 'text' || row.status !== 'completed') throw errors.notEditable();
  const stored = row.title ?? row.prompt;
  const titled = editedTitle(stored, edit?.title, sanitizeArticle(html));
  // Our images' alt text follows a renamed title (it was written from the title they were made under).
  const content = retitleImageAlts(titled.html.trim(), stored, titled.title, env.APP_URL);
  const text = htmlToText(content);
  const counts = countText(text);
  const search = [row.title === null && titled.title === stored ? '' : titled.title, row.prompt, text].join('\n').slice(0, SEARCH_TEXT_MAX);
  await db`
    UPDATE generation_results SET content = ${content}, search_text = ${search}, updated_at = now(),
      metadata = metadata || ${db.json(counts as never)}
      ${titled.title !== stored ? db`, title = ${titled.title}` : db``}
      ${edit ? seoAssignments(edit, db) : db``}
    WHERE id = ${id} AND user_id = ${userId}`;
  // The report follows the edit (its content and SEO fields as the result now reads them).
  await recheckResult(userId, id, (await getResult(userId, id, db)).seo, db);
  return getResult(userId, id, db);
}

function seoAssignments(seo: Partial<SeoFields>, db: Db) {
  const clean = cleanSeo(seo);
  return db`
    ${seo.metaDescription !== undefined ? db`, seo_description = ${clean.metaDescription}` : db``}
    ${seo.slug !== undefined ? db`, seo_slug = ${clean.slug}` : db``}
    ${seo.focusKeyword !== undefined ? db`, seo_keyword = ${clean.focusKeyword}` : db``}
    ${seo.seoTitle !== undefined ? db`, seo_title = ${clean.seoTitle}` : db``}`;
}

/**
 * Deletes results and, in the same statement's transaction, voids the hold of every one that was
 * still processing. The DELETE locks each row and deletes its latest version (a retry or a
 * worker that committed first is seen), so no hold can outlive its row; workers drop deleted
 * items they keep next in line.
 */
async function deleteRows(userId: string, resultId: string | null, tx: Db): Promise<{ deleted: number; canceled: number }> {
  const rows = await tx<{ id: string; attempt: number; status: ResultStatus }[]>`
    DELETE FROM generation_results WHERE user_id = ${userId} ${resultId ? tx`AND id = ${resultId}` : tx``}
    RETURNING id, attempt, status`;
  // A planned post's credits are held too, until it is written or dropped.
  const held = rows.filter((r) => r.status === 'processing' || r.status === 'planned');
  if (held.length > 0) {
    await settleHolds(
      held.map((r) => holdKey(r.id, r.attempt)),
      'void',
      tx,
    );
    await tx`SELECT pg_notify(${WAKE_CHANNEL}, ${CANCELED_SIGNAL})`;
  }
  // Their images' objects (with object storage) are deleted by a job, committed with the rows.
  if (rows.length > 0) await queueObjectDeletions(tx);
  return { deleted: rows.length, canceled: held.length };
}

/** Removes one result (a processing one is canceled and refunded in the same transaction). */
export async function deleteResult(userId: string, id: string, db: Db = sql): Promise<void> {
  if (!isUuid(id)) throw errors.notFound();
  await transaction(db, async (tx) => {
    if ((await deleteRows(userId, id, tx)).deleted === 0) throw errors.notFound();
  });
}

/** Removes every result of the owner; running items are canceled and refunded in the same transaction. */
export async function clearResults(userId: string, db: Db = sql): Promise<{ deleted: number; canceled: number }> {
  return transaction(db, async (tx) => {
    // Lock in one order first, so two clears (or a clear and a multi-row cancel) cannot deadlock.
    await tx`SELECT 1 FROM generation_results WHERE user_id = ${userId} ORDER BY id FOR UPDATE`;
    const removed = await deleteRows(userId, null, tx);
    // Only runs left empty: a run started after the DELETE's snapshot keeps its rows (and holds)
    // rather than losing them to the cascade.
    await tx`
      DELETE FROM generation_runs g WHERE g.user_id = ${userId}
        AND NOT EXISTS (SELECT 1 FROM generation_results r WHERE r.run_id = g.id)`;
    return removed;
  });
}

// ---------------------------------------------------------------------------------------------
// Images and downloads

// An image's bytes, wherever they are kept (images.server.ts owns that).
export { getImage, type StoredImage } from './images.server';

export type Download = { filename: string; contentType: string; body: Buffer };

/** How a text download lists the post's internal links (the heading in the reader's language). */
export type TextDownloadOptions = { linksHeading?: string };

/**
 * Text of a completed text result as a download (title, then the article as plain text). Plain text
 * cannot carry a link on its words, so the post's kept internal links follow it, one a
 * line: the anchor's words and where they link (an absolute URL, or `/slug/` for a run with no site).
 */
function textOf(row: Pick<Row, 'title' | 'content'>, links: KeptLink[] = [], opts: TextDownloadOptions = {}): string {
  const body = htmlToText(row.content ?? '');
  const text = row.title ? `${row.title}\n\n${body}\n` : `${body}\n`;
  if (links.length === 0) return text;
  return `${text}\n${opts.linksHeading ?? 'Internal links'}:\n${links.map((l) => `- ${l.anchor} → ${l.href}`).join('\n')}\n`;
}

/** One result as a file: text as `{prompt 30}.txt`, an image (output `index`) as `{prompt 30}.{ext}`. */
export async function resultDownload(
  userId: string,
  id: string,
  index = 0,
  opts: TextDownloadOptions = {},
  db: Db = sql,
): Promise<Download> {
  const row = await findRow(userId, id, db);
  if (row.status !== 'completed' || !row.content) throw errors.noContent();
  if (row.type === 'text') {
    const links = (await keptLinksOf(userId, [row.id], db)).get(row.id);
    return {
      filename: textFileName(row.prompt),
      contentType: 'text/plain; charset=utf-8',
      body: Buffer.from(textOf(row, links, opts), 'utf8'),
    };
  }
  const ids = Array.isArray(row.metadata.images) ? (row.metadata.images as string[]) : [];
  const imageId = ids[Math.max(0, Math.min(ids.length - 1, index))];
  if (!imageId) throw errors.noContent('errors.noImage', 'No image to download.');
  const image = await getImage(userId, imageId, db);
  return { filename: imageFileName(row.prompt, image.contentType), contentType: image.contentType, body: image.bytes };
}

/** What Download all takes: the Results tab's type filter and search, so it downloads the list as shown. */
export type DownloadFilter = { type?: 'all' | 'text' | 'image'; search?: string };

/** The completed results a download-all takes, as a WHERE fragment over `generation_results x`. */
function downloadWhere(userId: string, filter: DownloadFilter, db: Db) {
  const type = filter.type === 'text' || filter.type === 'image' ? filter.type : null;
  const search = (filter.search ?? '').trim().slice(0, 200);
  return db`x.user_id = ${userId} AND x.status = 'completed'
    ${type ? db`AND x.type = ${type}` : db``}
    ${search ? db`AND x.search_text ILIKE ${likePattern(search)}` : db``}`;
}

/** How many completed results (text) and images a download-all with this filter would hold. */
export async function countCompleted(userId: string, filter: DownloadFilter = {}, db: Db = sql): Promise<{ text: number; images: number }> {
  const where = downloadWhere(userId, filter, db);
  const [row] = await db<{ text: number; images: number }[]>`
    SELECT count(*) FILTER (WHERE x.type = 'text')::int AS text,
      (SELECT count(*)::int FROM generation_images i JOIN generation_results x ON x.id = i.result_id
        WHERE ${where} AND x.type = 'image' AND i.attempt = x.attempt) AS images
    FROM generation_results x WHERE ${where}`;
  return row ?? { text: 0, images: 0 };
}

/**
 * Every completed result that passes the filter as ONE ZIP, streamed while it is built:
 * `text_results.txt` (each text result under its prompt as a separator) and the images named
 * `{prompt 20}_{n}.{ext}`. Reads a page of rows at a time; no connection is held while the client reads.
 */
export async function streamAllResults(
  userId: string,
  filter: DownloadFilter = {},
  opts: TextDownloadOptions = {},
  db: Db = sql,
): Promise<{ filename: string; stream: ReadableStream<Uint8Array>; counts: { text: number; images: number } }> {
  const counts = await countCompleted(userId, filter, db);
  const where = downloadWhere(userId, filter, db);
  if (counts.text + counts.images === 0) throw errors.noContent('errors.noCompleted', 'No completed results to download.');
  const zip = new yazl.ZipFile();
  const out = new PassThrough();
  zip.outputStream.pipe(out);
  void (async () => {
    try {
      if (counts.text > 0) {
        const text = new PassThrough();
        zip.addReadStream(text, TEXT_RESULTS_FILE, { compress: true });
        let after: { createdAt: Date; position: number; id: string } | null = null;
        for (;;) {
          const page: { id: string; prompt: string; title: string | null; content: string | null; createdAt: Date; position: number }[] =
            await db`
            SELECT x.id, x.prompt, x.title, x.content, x.created_at AS "createdAt", x.position FROM generation_results x
            WHERE ${where} AND x.type = 'text'
              ${after ? db`AND (x.created_at, x.position, x.id) > (${after.createdAt}, ${after.position}, ${after.id})` : db``}
            ORDER BY x.created_at, x.position, x.id LIMIT 200`;
          const links = await keptLinksOf(
            userId,
            page.map((r) => r.id),
            db,
          );
          for (const r of page) {
            const chunk = `==================== ${r.prompt} ====================\n\n${textOf(r, links.get(r.id), opts)}\n`;
            if (!text.write(chunk)) await new Promise((resolve) => text.once('drain', resolve));
          }
          if (page.length < 200) break;
          const last = page[page.length - 1]!;
          after = { createdAt: last.createdAt, position: last.position, id: last.id };
        }
        text.end();
      }
      if (counts.images > 0) {
        const list = await db<{ id: string; prompt: string }[]>`
          SELECT i.id, x.prompt FROM generation_images i JOIN generation_results x ON x.id = i.result_id
          WHERE ${where} AND x.type = 'image' AND i.attempt = x.attempt
          ORDER BY x.created_at, x.position, i.idx`;
        let n = 0;
        for (const item of list) {
          const image = await getImage(userId, item.id, db);
          n++;
          // Already compressed: store as is.
          zip.addBuffer(image.bytes, imageFileName(item.prompt, image.contentType, n), { compress: false });
          // Let the stream drain before reading the next image.
          if (out.writableNeedDrain) await new Promise((resolve) => out.once('drain', resolve));
        }
      }
      zip.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return { filename: ALL_RESULTS_ZIP, stream: Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>, counts };
}
