import crypto from 'node:crypto';
import { isPro, type SubscriptionStatus } from '~/catalogue';
import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import type { PublishPayload } from '~/utils/wordpress-schemas';
import { cleanSeo, type SeoFields } from '~/utils/seo-fields';
import { withoutTitleHeading } from '~/utils/title-heading';
import { retitleImageAlts } from '~/utils/wordpress-images';
import { env } from '~/runtime/env.server';
import { getResult, type Result } from '../results.server';
import { plainText } from '../providers.server';
import { WordPressServiceError } from './errors.server';
import { publicationColumns, toPublication, type Publication, type PublicationRow } from './publication-record.server';
import { getSite, type Site } from './sites.server';
import { imageResultHtml, prepareContent } from './content.server';
import { resultImage } from './media.server';
import { PLACE_AHEAD_MS, placeable } from './placed-posts.server';
import { queueScheduleMirror } from './publish-queue.server';
import { heldResultIds } from './review-gate.server';

// Publications (wordpress_publications): what is published to a site, now or later. Each is a row
// plus a `wordpress-publish` job (now or startAfter publish_at) enqueued in the same transaction;
// the job (publish-job.server.ts) calls the site with no transaction open.

export type PublishRequest = {
  siteId: number;
  resultId: string | null;
  title: string;
  content: string;
  excerpt: string;
  categories: number[];
  tags: string[];
  /** When; null or a past date means now. */
  publishAt: Date | null;
  /** The post's status on the site (default publish). */
  wpStatus?: 'publish' | 'draft' | 'pending';
  /** The featured image: one of our stored images (uploaded once per site), or bytes of its own. */
  featuredImage?: { imageId: string } | { data: Buffer; mimeType: string } | null;
  /** 'media': only the content's images go to the media library (an image result); default 'post'. */
  kind?: 'post' | 'media';
  /** The site's post this replaces (the user chose to update an earlier publication's post). */
  updatePostId?: number | null;
  /** Slug, meta description, focus keyword and SEO title; empty ones are not sent. */
  seo?: SeoFields | null;
  /** The drip plan this belongs to (drip.server.ts): held while the site's schedule is paused. */
  dripPlanId?: string | null;
  /** Published only if the result's quality report passes or its owner approved it (review-gate.server.ts). */
  qualityGate?: boolean;
};

/** The publish payload; the gate is off when left out. */
export type PublishInput = Omit<PublishPayload, 'qualityGate'> & { qualityGate?: boolean };

export async function requirePro(userId: string, db: Db) {
  const [u] = await db<{ subscription_status: SubscriptionStatus }[]>`SELECT subscription_status FROM users WHERE id = ${userId}`;
  if (!u || !isPro(u.subscription_status)) throw new WordPressServiceError('not_pro');
}

/**
 * One post from the publish payload (the JSON API and the publish page): draft, pending or
 * published at once, or published at publishDate when its status is future; with the result's
 * generated image as its featured image when asked. Undefined when there was nothing to queue.
 */
export async function queuePublish(userId: string, p: PublishInput, db: Db = sql): Promise<Publication | undefined> {
  // A time already past is refused, never published at once without a word (a minute's grace for
  // a form posted at the time it names).
  if (p.status === 'future' && p.publishDate && Date.parse(p.publishDate) < Date.now() - 60_000) {
    throw new WordPressServiceError('past_publish_date');
  }
  const featuredImage = p.featured && p.resultId ? await resultImage(userId, p.resultId, db) : null;
  const kind = p.target === 'media' ? 'media' : 'post';
  let content = p.content;
  if (kind === 'media') {
    // Only an image result's own images go to the media library (what it is, not what was typed).
    const result = p.resultId ? await getResult(userId, p.resultId, db).catch(() => null) : null;
    if (!result) throw new WordPressServiceError('result_not_found');
    if (result.type !== 'image' || result.status !== 'completed' || !result.content) throw new WordPressServiceError('not_image');
    content = imageResultHtml(result, p.title);
  } else if (p.resultId && !/<[a-z!]/i.test(content)) {
    // An image result's content is its image's address, not HTML: sent as is (a script passing on
    // what GET /api/results/{id} gave), it becomes the figure the publish page makes of it, so the
    // image is uploaded and shown rather than its path printed as text.
    const result = await getResult(userId, p.resultId, db).catch(() => null);
    if (result?.type === 'image' && result.status === 'completed' && result.content) content = imageResultHtml(result, p.title);
  } else if (p.resultId) {
    // Published under another title than the result's: its images' alt text follows.
    const result = await getResult(userId, p.resultId, db).catch(() => null);
    if (result?.title) content = retitleImageAlts(content, result.title, p.title, env.APP_URL);
  }
  return transaction(db, async (tx) => {
    let updatePostId: number | null = null;
    if (p.resultId && kind === 'post') {
      // Publishing a result again to the same site is the user's choice: update the
      // earlier post or make a new one. Two publishes at once take turns, so the second sees the first.
      await lockResultOnSite(userId, p.resultId, p.siteId, tx);
      const existing = await existingPublication(userId, p.resultId, p.siteId, tx);
      if (existing) {
        const updatable = existing.status === 'published' && existing.postId !== null;
        if (!p.onExisting || (p.onExisting === 'update' && !updatable)) {
          throw new WordPressServiceError('already_published', 'already_published', existing);
        }
        if (p.onExisting === 'update') updatePostId = existing.postId;
      }
    }
    const [publication] = await queuePublications(
      userId,
      [
        {
          siteId: p.siteId,
          resultId: p.resultId,
          title: p.title,
          content,
          excerpt: p.excerpt,
          categories: p.categories,
          tags: p.tags,
          publishAt: p.status === 'future' && p.publishDate ? new Date(p.publishDate) : null,
          wpStatus: p.status === 'draft' || p.status === 'pending' ? p.status : 'publish',
          featuredImage: kind === 'post' ? featuredImage : null,
          updatePostId,
          seo: await payloadSeo(userId, p, tx),
          kind,
          qualityGate: p.qualityGate,
        },
      ],
      tx,
    );
    return publication;
  });
}

/**
 * The SEO fields of one publish: what the form or API sent, each field it left out taken from the
 * result (stored or derived), cleaned.
 */
async function payloadSeo(userId: string, p: PublishInput, db: Db): Promise<SeoFields> {
  const result = p.resultId ? await getResult(userId, p.resultId, db).catch(() => null) : null;
  const pick = (k: keyof SeoFields) => p[k] ?? result?.seo?.[k] ?? '';
  return cleanSeo({
    metaDescription: pick('metaDescription'),
    slug: pick('slug'),
    focusKeyword: pick('focusKeyword'),
    seoTitle: pick('seoTitle'),
  });
}

/** Publishing one result to one site takes turns (so a second publish sees the first), until commit. */
export async function lockResultOnSite(userId: string, resultId: string, siteId: number, tx: Db) {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`wordpress-publish:${userId}:${resultId}:${siteId}`}, 0))`;
}

/** existingPublication for several results at once: result id → its latest such publication. */
export async function existingPublications(
  userId: string,
  resultIds: string[],
  siteId: number,
  db: Db = sql,
): Promise<Map<string, Publication>> {
  if (resultIds.length === 0) return new Map();
  const rows = await db<PublicationRow[]>`
    SELECT DISTINCT ON (result_id) ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND result_id = ANY(${resultIds}::text[]) AND site_id = ${siteId} AND status IN ('published', 'queued')
      AND kind = 'post'
    ORDER BY result_id, created_at DESC`;
  return new Map(rows.map((r) => [r.result_id!, toPublication(r)]));
}

/**
 * The latest publication of a result to a site that made (or will make) a post: published, or
 * still waiting. Null when the result was never published there (or only failed or was canceled).
 */
export async function existingPublication(userId: string, resultId: string, siteId: number, db: Db = sql): Promise<Publication | null> {
  const [row] = await db<PublicationRow[]>`
    SELECT ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND result_id = ${resultId} AND site_id = ${siteId} AND status IN ('published', 'queued')
      AND kind = 'post'
    ORDER BY created_at DESC LIMIT 1`;
  return row ? toPublication(row) : null;
}

/** Queues publications (one transaction: rows and jobs together). Pro and Pro (Ending) only. */
export async function queuePublications(userId: string, requests: PublishRequest[], db: Db = sql): Promise<Publication[]> {
  if (requests.length === 0) return [];
  for (const r of requests) if (!prepareContent(r.content)) throw new WordPressServiceError('no_content');
  return transaction(db, async (tx) => {
    await requirePro(userId, tx);
    const sites = new Map<number, Site>();
    for (const r of requests) if (!sites.has(r.siteId)) sites.set(r.siteId, await getSite(userId, r.siteId, tx));
    const now = Date.now();
    const created: Publication[] = [];
    const jobs: { id: string; payload: { publicationId: string }; startAfter?: Date }[] = [];
    const ahead: string[] = [];
    for (const r of requests) {
      const id = crypto.randomUUID();
      const jobId = crypto.randomUUID();
      const marker = `postforge${id.replace(/-/g, '')}`;
      const at = r.publishAt && r.publishAt.getTime() > now ? r.publishAt : new Date(now);
      const bytes = r.featuredImage && 'data' in r.featuredImage ? r.featuredImage : null;
      const imageId = r.featuredImage && 'imageId' in r.featuredImage ? r.featuredImage.imageId : null;
      const [row] = await tx<PublicationRow[]>`
        INSERT INTO wordpress_publications
          (id, user_id, site_id, site_name, result_id, title, content, excerpt, categories, tags,
           featured_image, featured_image_type, featured_image_id, publish_at, marker, job_id, wp_status, update_post_id, kind, drip_plan_id,
           slug, meta_description, focus_keyword, seo_title, quality_gate)
        VALUES (${id}, ${userId}, ${r.siteId}, ${sites.get(r.siteId)!.siteName}, ${r.resultId}, ${plainText(r.title)},
          ${postBody(r)}, ${plainText(r.excerpt)}, ${r.categories}, ${r.tags},
          ${bytes?.data ?? null}, ${bytes?.mimeType ?? null}, ${imageId}, ${at}, ${marker}, ${jobId}, ${r.wpStatus ?? 'publish'},
          ${r.updatePostId ?? null}, ${r.kind ?? 'post'}, ${r.dripPlanId ?? null}, ${r.seo?.slug ?? ''}, ${r.seo?.metaDescription ?? ''}, ${r.seo?.focusKeyword ?? ''},
          ${r.seo?.seoTitle ?? ''}, ${r.qualityGate === true})
        RETURNING ${publicationColumns(tx)}`;
      created.push(toPublication(row!));
      // Far enough ahead, the post is made on the site's own schedule now (wp-admin shows it).
      if (
        at.getTime() > now + PLACE_AHEAD_MS &&
        placeable({ kind: r.kind ?? 'post', wp_status: r.wpStatus ?? 'publish', update_post_id: r.updatePostId ? '1' : null })
      )
        ahead.push(id);
      jobs.push({ id: jobId, payload: { publicationId: id }, ...(at.getTime() > now ? { startAfter: at } : {}) });
    }
    await enqueueMany('wordpress-publish', jobs, tx);
    await queueScheduleMirror(ahead, tx);
    return created;
  });
}

/**
 * What a post's content is stored as: made safe, without a leading H1 repeating its title (WordPress
 * prints the title as the page's H1) and with no other H1.
 */
function postBody(r: PublishRequest): string {
  const clean = prepareContent(r.content);
  return r.kind === 'media' ? clean : withoutTitleHeading(clean, plainText(r.title));
}

/** A result can be published when it is a completed text result with content. */
export function isPublishable(result: Pick<Result, 'type' | 'status' | 'content'>): boolean {
  return result.type === 'text' && result.status === 'completed' && Boolean(result.content?.trim());
}

/** Refuses an id that cannot name a publication before it reaches a uuid column. */
export function checkedPublicationId(id: string): string {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new WordPressServiceError('publication_not_found');
  return id;
}

export async function getPublication(userId: string, id: string, db: Db = sql): Promise<Publication> {
  const [row] = await db<
    PublicationRow[]
  >`SELECT ${publicationColumns(db)} FROM wordpress_publications WHERE user_id = ${userId} AND id = ${checkedPublicationId(id)}`;
  if (!row) throw new WordPressServiceError('publication_not_found');
  return toPublication(row);
}

/** The latest publication of each of these results (for the results list). */
export async function publicationsForResults(userId: string, resultIds: string[], db: Db = sql): Promise<Map<string, Publication>> {
  if (!resultIds.length) return new Map();
  const rows = await db<PublicationRow[]>`
    SELECT DISTINCT ON (result_id) ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND result_id = ANY(${resultIds}) ORDER BY result_id, created_at DESC`;
  return new Map(rows.map((r) => [r.result_id!, toPublication(r)]));
}

/**
 * For the results list, in one round trip: each result's latest publication (as
 * publicationsForResults) and which of them are held for review (review-gate's heldResultIds).
 */
export async function publicationsAndHolds(
  userId: string,
  resultIds: string[],
  db: Db = sql,
): Promise<{ publications: Map<string, Publication>; held: Set<string> }> {
  if (!resultIds.length) return { publications: new Map(), held: new Set() };
  // A held result has a queued publication, so it has a latest one: its row carries the flag.
  const rows = await db<(PublicationRow & { held: boolean })[]>`
    SELECT DISTINCT ON (result_id) ${publicationColumns(db)},
      result_id IN (${heldResultIds(userId, resultIds, db)}) AS held
    FROM wordpress_publications
    WHERE user_id = ${userId} AND result_id = ANY(${resultIds}) ORDER BY result_id, created_at DESC`;
  return {
    publications: new Map(rows.map((r) => [r.result_id!, toPublication(r)])),
    held: new Set(rows.flatMap((r) => (r.held ? [r.result_id!] : []))),
  };
}

/** What a result's row shows of its latest publication. */
export function publicationView(p: Publication | undefined | null) {
  return p
    ? {
        status: p.status,
        siteName: p.siteName,
        siteTimeZone: p.siteTimeZone,
        publishAt: p.publishAt,
        attempts: p.attempts,
        lastError: p.lastError,
        lastErrorCode: p.lastErrorCode,
        link: p.link,
        seoWritten: p.seoWritten,
        kind: p.kind,
        postStatus: p.postStatus,
        updatesPost: p.updatesPost,
        scheduledOnSite: p.scheduledOnSite,
      }
    : null;
}
