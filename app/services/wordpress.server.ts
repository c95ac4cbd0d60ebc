import crypto from 'node:crypto';
import sanitizeHtml from 'sanitize-html';
import { isPro, type SubscriptionStatus } from '~/catalogue';
import { sql, transaction, type Db } from '../../db/client';
import { enqueueMany, getBoss } from '~/queue/boss';
import type { PublishPayload } from '~/utils/wordpress-schemas';
import { storedErrorCode } from '~/utils/wordpress-errors';
import { instantToZoned, zonedToInstant } from '~/utils/zoned-time';
import { AppError } from '~/utils/app-error';
import { env } from '~/runtime/env.server';
import { ourImages, rewriteImageSources } from '~/utils/wordpress-images';
import { getResult, listResults, type Result } from './results.server';
import { plainText } from './providers.server';
import { htmlToBlocks } from '~/utils/gutenberg-blocks';
import { cleanSeo, type SeoFields } from '~/utils/seo-fields';
import { open, seal } from './secrets.server';
import { publicationFinished } from './webhooks.server';
import { publishLinks, queueLinkFixups, runLinkFixups, type FixupOutcome } from './publish-links.server';
import { checkUrlAddresses, OutboundError, type OutboundOptions } from './outbound.server';
import {
  checkConnection,
  createPost,
  ensureTags,
  siteTimeZone,
  updatePost,
  findMediaByMarker,
  findPostByMarker,
  getMedia,
  getPost,
  listCategories,
  normalizeSiteUrl,
  uploadMedia,
  whoAmI,
  WpError,
  type ConnectionCheck,
  type SiteCredentials,
  type WpCallOptions,
  type WpCategory,
  type WpMedia,
} from './wordpress-client.server';

// Users' WordPress sites and what they publish to them. Sites are owned (another user's id is
// "not found"); application passwords are sealed and never leave this module but to the site.
// Publishing is a row in wordpress_publications plus a `wordpress-publish` job (now or startAfter
// publish_at) enqueued in the same transaction; the job (runPublication) calls the site with no
// transaction open, and a marker stored with the post makes a retry find what an earlier attempt made.

export type Site = {
  id: number;
  siteName: string;
  siteUrl: string;
  username: string;
  isDefault: boolean;
  /** The site's own time zone (its REST index says it), null until known. */
  timeZone: string | null;
  /** Posts go as plain HTML (one Classic block, for older themes) instead of Gutenberg blocks. */
  classicHtml: boolean;
  /** Posts published to this site carry their internal links (issue 26 §6; no provider call, no credits). */
  internalLinks: boolean;
  createdAt: string;
};

export const WORDPRESS_ERROR_CODES = [
  /** A site, result or run that is unknown or another user's (and a move or cancel of a post no longer waiting). */
  'not_found',
  /** A publication id that is unknown or another user's. */
  'publication_not_found',
  'not_pro',
  'no_content',
  'not_publishable',
  'past_start',
  'already_published',
  'not_waiting',
  // Drip schedules (wordpress-drip.server.ts).
  'plan_changed',
  'no_capacity',
  'outside_rules',
  'no_schedule',
  /** The site's address is one the outbound guard refuses (private, loopback, another scheme). */
  'blocked_url',
  // Internal links (internal-links.server.ts): a link that is not the post's, a post that cannot be linked.
  'link_not_found',
  'not_linkable',
] as const;
export type WordPressErrorCode = (typeof WORDPRESS_ERROR_CODES)[number];

/** Each code's message in the `wordpress` namespace (already_published in bulk: bulk.existing.conflict). */
const WORDPRESS_ERROR_KEYS: Record<WordPressErrorCode, string> = {
  not_found: 'sites.notFound',
  publication_not_found: 'scheduled.notFound',
  not_pro: 'publish.proOnly',
  no_content: 'publish.noContent',
  not_publishable: 'bulk.notPublishable',
  past_start: 'validation.pastStart',
  already_published: 'publish.existing.conflict',
  not_waiting: 'scheduled.notWaiting',
  plan_changed: 'drip.preview.changed',
  no_capacity: 'calendar.dayFull',
  outside_rules: 'calendar.outsideRules',
  no_schedule: 'calendar.noSchedule',
  blocked_url: 'sites.blockedUrl',
  link_not_found: 'linkErrors.linkNotFound',
  not_linkable: 'linkErrors.notLinkable',
};

export class WordPressServiceError extends AppError<'wordpress', WordPressErrorCode> {
  constructor(
    code: WordPressErrorCode,
    message: string = code,
    /** already_published: the earlier publication of the result to the site. */
    readonly existing?: Publication,
    /** already_published in bulk: the earlier publication of each such result (by result id). */
    readonly existingMany: Publication[] = [],
  ) {
    super('wordpress', code, existingMany.length > 0 ? 'bulk.existing.conflict' : WORDPRESS_ERROR_KEYS[code], message);
    this.name = 'WordPressServiceError';
  }
}

const sealContext = (userId: string) => `wordpress-app-password:${userId}`;

type SiteRow = {
  id: string;
  site_url: string;
  site_name: string;
  username: string;
  is_default: boolean;
  time_zone: string | null;
  classic_html: boolean;
  link_enabled: boolean;
  created_at: Date;
};

function toSite(r: SiteRow): Site {
  return {
    id: Number(r.id),
    siteName: r.site_name,
    siteUrl: r.site_url,
    username: r.username,
    isDefault: r.is_default,
    timeZone: r.time_zone,
    classicHtml: r.classic_html,
    internalLinks: r.link_enabled,
    createdAt: r.created_at.toISOString(),
  };
}

export function siteNameOf(siteUrl: string): string {
  return new URL(siteUrl).host;
}

export async function listSites(userId: string, db: Db = sql): Promise<Site[]> {
  const rows = await db<SiteRow[]>`
    SELECT id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at FROM wordpress_sites
    WHERE user_id = ${userId} ORDER BY is_default DESC, id`;
  return rows.map(toSite);
}

export async function getSite(userId: string, siteId: number, db: Db = sql): Promise<Site> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('not_found');
  const [row] = await db<SiteRow[]>`
    SELECT id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at FROM wordpress_sites
    WHERE user_id = ${userId} AND id = ${siteId}`;
  if (!row) throw new WordPressServiceError('not_found');
  return toSite(row);
}

/** The site's address and opened application password, for calls to it (never for a response). */
export async function siteCredentials(userId: string, siteId: number, db: Db = sql): Promise<SiteCredentials & { siteName: string }> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('not_found');
  const [row] = await db<{ site_url: string; site_name: string; username: string; app_password_sealed: string }[]>`
    SELECT site_url, site_name, username, app_password_sealed FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
  if (!row) throw new WordPressServiceError('not_found');
  return {
    siteUrl: row.site_url,
    siteName: row.site_name,
    username: row.username,
    appPassword: open(row.app_password_sealed, sealContext(userId)),
  };
}

// A tested application password, sealed into the site form when the page is rendered again without
// JavaScript (the password field itself is never sent back), so Save after Test connection works.
const testedContext = (userId: string) => `wordpress-tested-password:${userId}`;

export function sealTestedPassword(userId: string, appPassword: string): string {
  return seal(appPassword, testedContext(userId));
}

/** The password sealed by sealTestedPassword for this user, or null (tampered, another user's). */
export function openTestedPassword(userId: string, sealed: string): string | null {
  try {
    return open(sealed, testedContext(userId));
  } catch {
    return null;
  }
}

export type SiteInput = {
  siteUrl: string;
  username: string;
  appPassword?: string;
  isDefault: boolean;
  classicHtml?: boolean;
  /** Absent: on for a new site, unchanged for an edit. */
  internalLinks?: boolean;
};

type GuardOptions = Pick<OutboundOptions, 'allowPrivate' | 'lookup' | 'allowAddress'>;

/** The site's address, normalized, if the outbound guard would let us call it (else blocked_url). */
async function guardedSiteUrl(raw: string, guard: GuardOptions): Promise<string> {
  const siteUrl = normalizeSiteUrl(raw);
  try {
    await checkUrlAddresses(siteUrl, guard);
  } catch (error) {
    if (error instanceof OutboundError) throw new WordPressServiceError('blocked_url', error.message);
    throw error;
  }
  return siteUrl;
}

export async function createSite(
  userId: string,
  input: SiteInput & { appPassword: string },
  guard: GuardOptions = {},
  db: Db = sql,
): Promise<Site> {
  const siteUrl = await guardedSiteUrl(input.siteUrl, guard);
  return transaction(db, async (tx) => {
    // The user's first site is the default one.
    await tx`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
    const [{ n }] = (await tx`SELECT count(*)::int AS n FROM wordpress_sites WHERE user_id = ${userId}`) as unknown as [{ n: number }];
    const isDefault = input.isDefault || n === 0;
    if (isDefault) await tx`UPDATE wordpress_sites SET is_default = false WHERE user_id = ${userId} AND is_default`;
    const [row] = await tx<SiteRow[]>`
      INSERT INTO wordpress_sites (user_id, site_url, site_name, username, app_password_sealed, is_default, classic_html, link_enabled)
      VALUES (${userId}, ${siteUrl}, ${siteNameOf(siteUrl)}, ${input.username.trim()}, ${seal(input.appPassword.trim(), sealContext(userId))}, ${isDefault},
        ${input.classicHtml ?? false}, ${input.internalLinks ?? true})
      RETURNING id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at`;
    return toSite(row!);
  });
}

export async function updateSite(userId: string, siteId: number, input: SiteInput, guard: GuardOptions = {}, db: Db = sql): Promise<Site> {
  const siteUrl = await guardedSiteUrl(input.siteUrl, guard);
  return transaction(db, async (tx) => {
    const before = await getSite(userId, siteId, tx);
    // Another site at this address: what was uploaded to the old one's media library is not there.
    if (before.siteUrl !== siteUrl) await tx`DELETE FROM wordpress_media WHERE site_id = ${siteId}`;
    if (input.isDefault)
      await tx`UPDATE wordpress_sites SET is_default = false WHERE user_id = ${userId} AND is_default AND id <> ${siteId}`;
    const password = input.appPassword?.trim();
    const [row] = await tx<SiteRow[]>`
      UPDATE wordpress_sites SET
        site_url = ${siteUrl}, site_name = ${siteNameOf(siteUrl)}, username = ${input.username.trim()},
        app_password_sealed = ${password ? seal(password, sealContext(userId)) : sql`app_password_sealed`},
        is_default = ${input.isDefault ? true : sql`is_default`},
        classic_html = ${input.classicHtml ?? sql`classic_html`}, link_enabled = ${input.internalLinks ?? sql`link_enabled`},
        updated_at = now()
      WHERE user_id = ${userId} AND id = ${siteId}
      RETURNING id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at`;
    return toSite(row!);
  });
}

export async function setDefaultSite(userId: string, siteId: number, db: Db = sql): Promise<Site> {
  return transaction(db, async (tx) => {
    await getSite(userId, siteId, tx);
    await tx`UPDATE wordpress_sites SET is_default = false WHERE user_id = ${userId} AND is_default AND id <> ${siteId}`;
    const [row] = await tx<SiteRow[]>`
      UPDATE wordpress_sites SET is_default = true, updated_at = now() WHERE user_id = ${userId} AND id = ${siteId}
      RETURNING id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at`;
    return toSite(row!);
  });
}

/** Deletes a site; what was waiting to be published to it is canceled. */
export async function deleteSite(userId: string, siteId: number, db: Db = sql): Promise<void> {
  const jobIds = await transaction(db, async (tx) => {
    const site = await getSite(userId, siteId, tx);
    const canceled = await tx<{ job_id: string | null }[]>`
      UPDATE wordpress_publications SET status = 'canceled', last_error = 'site removed', updated_at = now()
      WHERE user_id = ${userId} AND site_id = ${siteId} AND status = 'queued' RETURNING job_id`;
    await tx`DELETE FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
    if (site.isDefault) {
      await tx`UPDATE wordpress_sites SET is_default = true WHERE id = (SELECT min(id) FROM wordpress_sites WHERE user_id = ${userId})`;
    }
    return canceled.map((r) => r.job_id).filter((id): id is string => Boolean(id));
  });
  await cancelJobs(jobIds);
}

async function cancelJobs(ids: string[]) {
  if (!ids.length) return;
  const boss = await getBoss();
  // The handler also checks the row, so a job that was already running stops at its first look.
  await boss.cancel('wordpress-publish', ids).catch(() => undefined);
}

// ---------------------------------------------------------------------------------------------
// Calls to a site on the user's behalf

/**
 * Reads the site's time zone from its REST index and keeps it (best effort: an unreachable site
 * keeps what was known). Returns the zone now stored.
 */
export async function refreshSiteTimeZone(userId: string, siteId: number, opts: WpCallOptions = {}): Promise<string | null> {
  const site = await getSite(userId, siteId);
  const zone = await siteTimeZone(site.siteUrl, opts).catch(() => null);
  if (!zone || zone === site.timeZone) return site.timeZone;
  await sql`UPDATE wordpress_sites SET time_zone = ${zone} WHERE user_id = ${userId} AND id = ${siteId}`;
  return zone;
}

export function testConnection(input: SiteCredentials, opts: WpCallOptions = {}): Promise<ConnectionCheck> {
  let siteUrl: string;
  try {
    siteUrl = normalizeSiteUrl(input.siteUrl);
  } catch {
    return Promise.resolve({ ok: false, problem: 'bad_url', detail: 'Not a valid URL' });
  }
  return checkConnection({ ...input, siteUrl }, opts);
}

export async function siteCategories(userId: string, siteId: number, opts: WpCallOptions = {}): Promise<WpCategory[]> {
  const creds = await siteCredentials(userId, siteId);
  return listCategories(creds, opts);
}

/** The editor's image upload: to the site's media library, returning its URL. */
export async function uploadImageToSite(
  userId: string,
  siteId: number,
  file: { data: Buffer; filename: string; mimeType: string },
  opts: WpCallOptions = {},
): Promise<{ id: number; url: string }> {
  const creds = await siteCredentials(userId, siteId);
  return uploadMedia(creds, file, opts);
}

// ---------------------------------------------------------------------------------------------
// Content

/** SPEC §5: a full HTML document is reduced to its body; then only safe markup is kept. */
export function prepareContent(html: string): string {
  let text = html.trim();
  if (/<html[\s>]|<!doctype html|<body[\s>]/i.test(text)) {
    const body = /<body[^>]*>([\s\S]*?)<\/body\s*>/i.exec(text);
    text = body ? body[1]! : text.replace(/<head[\s\S]*?<\/head\s*>/i, '').replace(/<\/?(html|body|!doctype)[^>]*>/gi, '');
  }
  return sanitizeHtml(text, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'figure', 'figcaption', 'del', 'ins', 'sub', 'sup'],
    allowedAttributes: {
      a: ['href', 'name', 'target', 'rel', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan', 'scope'],
      '*': ['id'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  }).trim();
}

/**
 * A title or excerpt for WordPress: plain text, escaped. WordPress renders both as HTML and keeps
 * them unfiltered for a user with unfiltered_html (an admin), so markup in them would run on the blog.
 */
export function wordPressText(text: string): string {
  return plainText(text).replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

function markerComment(marker: string): string {
  return `<!-- ${marker} -->`;
}

/**
 * The post's content as sent: Gutenberg blocks (the marker an attribute of the first block), or
 * for a Classic HTML site the HTML with the marker as a comment. Takes the stored (sanitized) HTML
 * after any rewriting of its image URLs, so the two steps compose.
 */
export function postContent(
  html: string,
  opts: { classicHtml: boolean; marker: string; mediaIdOf?: (src: string) => number | undefined },
): string {
  const clean = prepareContent(html);
  if (opts.classicHtml) return `${clean}\n${markerComment(opts.marker)}`;
  return htmlToBlocks(clean, { marker: opts.marker, mediaIdOf: opts.mediaIdOf });
}

/**
 * The post meta keys of Yoast SEO and Rank Math for the meta description and focus keyword: what
 * the companion plugin (public/wordpress/postforge-seo.php) registers for the REST API.
 */
export const SEO_META_KEYS = {
  description: ['_yoast_wpseo_metadesc', 'rank_math_description'],
  focusKeyword: ['_yoast_wpseo_focuskw', 'rank_math_focus_keyword'],
} as const;

function seoMeta(row: { meta_description: string; focus_keyword: string }): Record<string, string> {
  const meta: Record<string, string> = {};
  if (row.meta_description) for (const k of SEO_META_KEYS.description) meta[k] = row.meta_description;
  if (row.focus_keyword) for (const k of SEO_META_KEYS.focusKeyword) meta[k] = row.focus_keyword;
  return meta;
}

// ---------------------------------------------------------------------------------------------
// Publishing

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
  /** Slug, meta description and focus keyword (issue 21 §3); empty ones are not sent. */
  seo?: SeoFields | null;
  /** The drip plan this belongs to (wordpress-drip.server.ts): held while the site's schedule is paused. */
  dripPlanId?: string | null;
};

export type Publication = {
  id: string;
  siteId: number | null;
  siteName: string;
  /** The site's own time zone when known (scheduled times are also shown in it when it differs). */
  siteTimeZone: string | null;
  resultId: string | null;
  title: string;
  status: 'queued' | 'published' | 'failed' | 'canceled';
  publishAt: string;
  attempts: number;
  /** The site's (or our) raw text of the last failure, and its code (wordpress-errors.ts). */
  lastError: string | null;
  lastErrorCode: string | null;
  /** Set when this publication updates an earlier post instead of making one. */
  updatesPost: boolean;
  /** 'media': the images went to the media library only (then `link` is the first one's URL). */
  kind: 'post' | 'media';
  postId: number | null;
  link: string | null;
  publishedAt: string | null;
  /**
   * Whether the site stored the meta description and focus keyword (Yoast SEO / Rank Math keys,
   * exposed by the companion plugin): null when none were sent or not yet known.
   */
  seoWritten: boolean | null;
};

type PublicationRow = {
  id: string;
  site_id: string | null;
  site_name: string;
  site_time_zone: string | null;
  result_id: string | null;
  title: string;
  status: Publication['status'];
  publish_at: Date;
  attempts: number;
  last_error: string | null;
  last_error_code: string | null;
  update_post_id: string | null;
  kind: 'post' | 'media';
  wp_post_id: string | null;
  wp_link: string | null;
  published_at: Date | null;
  seo_written: boolean | null;
};

function toPublication(r: PublicationRow): Publication {
  return {
    id: r.id,
    siteId: r.site_id === null ? null : Number(r.site_id),
    siteName: r.site_name,
    siteTimeZone: r.site_time_zone,
    resultId: r.result_id,
    title: r.title,
    status: r.status,
    publishAt: r.publish_at.toISOString(),
    attempts: r.attempts,
    lastError: r.last_error,
    lastErrorCode: r.last_error_code,
    updatesPost: r.update_post_id !== null,
    kind: r.kind,
    postId: r.wp_post_id === null ? null : Number(r.wp_post_id),
    link: r.wp_link,
    publishedAt: r.published_at?.toISOString() ?? null,
    seoWritten: r.seo_written,
  };
}

// A function of the query's own db: a fragment built at import would open the pool before the
// database is known (the embedded one starts after the modules load).
const publicationColumns = (db: Db) =>
  db`id, site_id, site_name, result_id, title, status, publish_at, attempts, last_error, last_error_code, update_post_id, kind,
    wp_post_id, wp_link, published_at, seo_written,
    (SELECT s.time_zone FROM wordpress_sites s WHERE s.id = site_id) AS site_time_zone`;

async function requirePro(userId: string, db: Db) {
  const [u] = await db<{ subscription_status: SubscriptionStatus }[]>`SELECT subscription_status FROM users WHERE id = ${userId}`;
  if (!u || !isPro(u.subscription_status)) throw new WordPressServiceError('not_pro');
}

/** Queues publications (one transaction: rows and jobs together). Pro and Pro (Ending) only. */
/**
 * One post from the publish payload (SPEC §3; the JSON API and the publish page): draft, pending or
 * published at once, or published at publishDate when its status is future; with the result's
 * generated image as its featured image when asked. Undefined when there was nothing to queue.
 */
export async function queuePublish(userId: string, p: PublishPayload, db: Db = sql): Promise<Publication | undefined> {
  const featuredImage = p.featured && p.resultId ? await resultImage(userId, p.resultId, db) : null;
  const kind = p.target === 'media' ? 'media' : 'post';
  let content = p.content;
  if (kind === 'media') {
    // Only an image result's own images go to the media library (what it is, not what was typed).
    const result = p.resultId ? await getResult(userId, p.resultId, db).catch(() => null) : null;
    if (!result) throw new WordPressServiceError('not_found');
    if (result.type !== 'image' || result.status !== 'completed' || !result.content) throw new WordPressServiceError('not_publishable');
    content = imageResultHtml(result, p.title);
  } else if (p.resultId && !/<[a-z!]/i.test(content)) {
    // An image result's content is its image's address, not HTML: sent as is (a script passing on
    // what GET /api/results/{id} gave), it becomes the figure the publish page makes of it, so the
    // image is uploaded and shown rather than its path printed as text.
    const result = await getResult(userId, p.resultId, db).catch(() => null);
    if (result?.type === 'image' && result.status === 'completed' && result.content) content = imageResultHtml(result, p.title);
  }
  return transaction(db, async (tx) => {
    let updatePostId: number | null = null;
    if (p.resultId && kind === 'post') {
      // Publishing a result again to the same site is the user's choice (issue 25): update the
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
async function payloadSeo(userId: string, p: PublishPayload, db: Db): Promise<SeoFields> {
  const result = p.resultId ? await getResult(userId, p.resultId, db).catch(() => null) : null;
  const pick = (k: keyof SeoFields) => p[k] ?? result?.seo?.[k] ?? '';
  return cleanSeo({ metaDescription: pick('metaDescription'), slug: pick('slug'), focusKeyword: pick('focusKeyword') });
}

/** Publishing one result to one site takes turns (so a second publish sees the first), until commit. */
async function lockResultOnSite(userId: string, resultId: string, siteId: number, tx: Db) {
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
           slug, meta_description, focus_keyword)
        VALUES (${id}, ${userId}, ${r.siteId}, ${sites.get(r.siteId)!.siteName}, ${r.resultId}, ${plainText(r.title)},
          ${prepareContent(r.content)}, ${plainText(r.excerpt)}, ${r.categories}, ${r.tags},
          ${bytes?.data ?? null}, ${bytes?.mimeType ?? null}, ${imageId}, ${at}, ${marker}, ${jobId}, ${r.wpStatus ?? 'publish'},
          ${r.updatePostId ?? null}, ${r.kind ?? 'post'}, ${r.dripPlanId ?? null}, ${r.seo?.slug ?? ''}, ${r.seo?.metaDescription ?? ''}, ${r.seo?.focusKeyword ?? ''})
        RETURNING ${publicationColumns(tx)}`;
      created.push(toPublication(row!));
      jobs.push({ id: jobId, payload: { publicationId: id }, ...(at.getTime() > now ? { startAfter: at } : {}) });
    }
    await enqueueMany('wordpress-publish', jobs, tx);
    return created;
  });
}

/** Spread publish times: the first at start, then one every `every` hours or days. */
export function spreadSchedule(start: Date, count: number, every: number, unit: 'hours' | 'days'): Date[] {
  const step = every * (unit === 'hours' ? 3_600_000 : 86_400_000);
  return Array.from({ length: count }, (_, i) => new Date(start.getTime() + i * step));
}

/**
 * Publish times of a bulk schedule in the user's time zone: the first at `start`, then one every
 * `every` hours (exact hours) or days (the same wall-clock time each day, across daylight saving).
 */
export function zonedSchedule(start: Date, count: number, every: number, unit: 'hours' | 'days', timeZone: string): Date[] {
  if (unit === 'hours') return spreadSchedule(start, count, every, 'hours');
  const wall = instantToZoned(start, timeZone);
  const [y, m, d] = wall.date.split('-').map(Number) as [number, number, number];
  return Array.from({ length: count }, (_, i) => {
    const day = new Date(Date.UTC(y, m - 1, d + i * every)).toISOString().slice(0, 10);
    return zonedToInstant(day, wall.time, timeZone) ?? new Date(start.getTime() + i * every * 86_400_000);
  });
}

/** A result can be published when it is a completed text result with content. */
export function isPublishable(result: Pick<Result, 'type' | 'status' | 'content'>): boolean {
  return result.type === 'text' && result.status === 'completed' && Boolean(result.content?.trim());
}

/**
 * The bulk publish page's selection: the user's sites and, of the chosen results (in their order),
 * the publishable ones and how many are not. Null when an id is not one of the user's results.
 */
export async function bulkSelection(userId: string, resultIds: string[], db: Db = sql) {
  const sites = await listSites(userId, db);
  const results: { id: string; title: string }[] = [];
  let skipped = 0;
  for (const id of resultIds) {
    const result = await getResult(userId, id, db).catch(() => null);
    if (!result) return null;
    if (isPublishable(result)) results.push({ id: result.id, title: result.title?.trim() || result.prompt });
    else skipped++;
  }
  return { sites, results, skipped };
}

export type BulkPublishInput = {
  siteId: number;
  /** In this order; each at most once. */
  resultIds: string[];
  /** Null: all now. Otherwise the first post's time, then one every `every` `unit`. */
  schedule: { start: Date; every: number; unit: 'hours' | 'days'; timeZone: string } | null;
  categories: number[];
  tags: string[];
  /** Each result's generated image (if it has one) as its featured image. */
  featured: boolean;
  /**
   * For results already on the site (published, or waiting to be): update their post, publish a
   * new one, or leave them out. Unset: refused (already_published) when there is any.
   */
  onExisting?: 'update' | 'new' | 'skip';
  /** A drip schedule instead: plans the chosen results' times inside this transaction (wordpress-drip.server.ts). */
  drip?: DripTimes;
};

/** The times of the chosen results (in order) and the drip plan they belong to. */
export type DripTimes = (chosen: { id: string; title: string }[], tx: Db) => Promise<{ times: Date[]; planId: string }>;

/**
 * Bulk publish (issue 10): one publication per result, rows and `wordpress-publish` jobs (each with
 * its startAfter) in ONE transaction. Pro and Pro (Ending) only; a result of another user (or none)
 * is "not found" and nothing is queued; a result that is not a completed text is refused.
 */
export async function queueBulkPublications(userId: string, input: BulkPublishInput, db: Db = sql): Promise<Publication[]> {
  const ids = [...new Set(input.resultIds)];
  if (ids.length === 0) return [];
  if (input.schedule) {
    // The first post may not be before today (the date picker's rule), in the user's time zone.
    const today = instantToZoned(new Date(), input.schedule.timeZone).date;
    if (instantToZoned(input.schedule.start, input.schedule.timeZone).date < today) throw new WordPressServiceError('past_start');
  }
  return transaction(db, async (tx) => {
    await requirePro(userId, tx);
    await getSite(userId, input.siteId, tx);
    const results: Result[] = [];
    for (const id of ids) {
      const result = await getResult(userId, id, tx).catch(() => null);
      if (!result) throw new WordPressServiceError('not_found');
      if (!isPublishable(result)) throw new WordPressServiceError('not_publishable');
      results.push(result);
    }
    // The same rule as one publish (and the same locks, taken in a fixed order): a result already on
    // the site is updated, published again or left out only as the user chose.
    for (const id of [...ids].sort()) await lockResultOnSite(userId, id, input.siteId, tx);
    const existing = await existingPublications(userId, ids, input.siteId, tx);
    if (existing.size > 0 && !input.onExisting) {
      const many = [...existing.values()];
      throw new WordPressServiceError('already_published', 'already_published', many[0], many);
    }
    const updates = new Map<string, number>();
    const chosen = results.filter((r) => {
      const earlier = existing.get(r.id);
      if (!earlier || input.onExisting === 'new') return true;
      if (input.onExisting === 'skip') return false;
      // update: a post to update, or (still waiting) the waiting publication will make it.
      if (earlier.status !== 'published' || earlier.postId === null) return false;
      updates.set(r.id, earlier.postId);
      return true;
    });
    const dripped = input.drip
      ? await input.drip(
          chosen.map((r) => ({ id: r.id, title: r.title?.trim() || r.prompt })),
          tx,
        )
      : null;
    const times = dripped
      ? dripped.times
      : input.schedule
        ? zonedSchedule(input.schedule.start, chosen.length, input.schedule.every, input.schedule.unit, input.schedule.timeZone)
        : null;
    const requests: PublishRequest[] = [];
    for (const [i, r] of chosen.entries()) {
      requests.push({
        updatePostId: updates.get(r.id) ?? null,
        siteId: input.siteId,
        resultId: r.id,
        title: r.title?.trim() || r.prompt,
        content: r.content ?? '',
        excerpt: '',
        categories: input.categories,
        tags: input.tags,
        publishAt: times ? times[i]! : null,
        dripPlanId: dripped?.planId ?? null,
        featuredImage: input.featured ? await resultImage(userId, r.id, tx) : null,
        seo: r.seo,
      });
    }
    return queuePublications(userId, requests, tx);
  });
}

/** Refuses an id that cannot name a publication before it reaches a uuid column. */
function checkedPublicationId(id: string): string {
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

/**
 * True when an attempt made since `attemptsBefore` failed with an answer from the site (refused, not
 * resolved, an error status...) rather than by being slow: there is nothing to wait for. A timeout
 * is slow (the post may even exist: its retry finds it), and a failure without a code is ours (a
 * lost database, say), never the site's: both keep their retries.
 */
function failedBySite(pub: Publication, attemptsBefore: number): boolean {
  return pub.status === 'queued' && pub.attempts > attemptsBefore && pub.lastErrorCode !== null && pub.lastErrorCode !== 'timeout';
}

/**
 * The publication once it has ended (published, failed or canceled) or an attempt the site failed,
 * or as it is when `timeoutMs` ran out. Bounded polling of its row: whichever process's worker runs
 * the job, the row says.
 */
export async function waitForPublication(userId: string, id: string, timeoutMs: number, attemptsBefore = 0): Promise<Publication> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 500)) {
    const pub = await getPublication(userId, id);
    const left = deadline - Date.now();
    if (pub.status !== 'queued' || failedBySite(pub, attemptsBefore) || left <= 0) return pub;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}

/**
 * Ends a publication failed with the error of the attempt `seen` holds: the waiting user is told it
 * failed, so no retry may post it later behind their back (they publish again when the site is
 * fixed). Only if no attempt ended since (`attempts` unchanged); its waiting retry is canceled. The
 * retry's backoff (30 s at least) is far longer than the wait's polling pause, so it has not begun.
 */
async function endFailed(userId: string, seen: Publication, db: Db = sql): Promise<Publication> {
  const jobId = await transaction(db, async (tx) => {
    const [row] = await tx<{ resultId: string | null; jobId: string | null }[]>`
      UPDATE wordpress_publications SET status = 'failed', updated_at = now()
      WHERE user_id = ${userId} AND id = ${seen.id} AND status = 'queued' AND attempts = ${seen.attempts}
      RETURNING result_id AS "resultId", job_id AS "jobId"`;
    if (row)
      await publicationFinished({ userId, publicationId: seen.id, resultId: row.resultId, status: 'failed', error: seen.lastError }, tx);
    return row?.jobId;
  });
  if (jobId) await cancelJobs([jobId]);
  return getPublication(userId, seen.id, db);
}

export type PublishOutcome = {
  publication: Publication;
  /** published / failed: the site answered in time; background: still running; scheduled: for later. */
  outcome: 'published' | 'failed' | 'background' | 'scheduled';
};

/**
 * Publish (SPEC §7): queued through the one idempotent job path, then, unless scheduled for later,
 * waited for up to WORDPRESS_PUBLISH_WAIT_SECONDS. A failure the site gives in that time ends the
 * publication failed at once; only a slow site is left to the background. Undefined when there was
 * nothing to queue.
 */
export async function publishAndWait(
  userId: string,
  p: PublishPayload,
  waitMs = env.WORDPRESS_PUBLISH_WAIT_SECONDS * 1000,
  /** How the publication is queued (an Idempotency-Key's replay: the one queued the first time). */
  queue: () => Promise<Publication | undefined> = () => queuePublish(userId, p),
): Promise<PublishOutcome | undefined> {
  const queued = await queue();
  if (!queued) return undefined;
  if (Date.parse(queued.publishAt) > Date.now() + 1000) return { publication: queued, outcome: 'scheduled' };
  let publication = await waitForPublication(userId, queued.id, waitMs, queued.attempts);
  if (failedBySite(publication, queued.attempts)) publication = await endFailed(userId, publication);
  const outcome = publication.status === 'published' ? 'published' : publication.status === 'queued' ? 'background' : 'failed';
  return { publication, outcome };
}

/** What is waiting (queued, soonest first) and what recently ended (failed or published). */
export async function listScheduled(userId: string, db: Db = sql): Promise<{ waiting: Publication[]; recent: Publication[] }> {
  const waiting = await db<PublicationRow[]>`
    SELECT ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND status = 'queued' ORDER BY publish_at, created_at LIMIT 500`;
  const recent = await db<PublicationRow[]>`
    SELECT ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND status IN ('published', 'failed') ORDER BY updated_at DESC LIMIT 50`;
  return { waiting: waiting.map(toPublication), recent: recent.map(toPublication) };
}

/** The latest publication of each of these results (for the results list). */
export async function publicationsForResults(userId: string, resultIds: string[], db: Db = sql): Promise<Map<string, Publication>> {
  if (!resultIds.length) return new Map();
  const rows = await db<PublicationRow[]>`
    SELECT DISTINCT ON (result_id) ${publicationColumns(db)} FROM wordpress_publications
    WHERE user_id = ${userId} AND result_id = ANY(${resultIds}) ORDER BY result_id, created_at DESC`;
  return new Map(rows.map((r) => [r.result_id!, toPublication(r)]));
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
      }
    : null;
}

export const INTEGRATION_RESULTS = 50;

/**
 * The workspace's WordPress integration tab: the sites, the latest completed text results (to pick
 * for publishing, each with its latest publication) and what is scheduled or recently finished.
 */
export async function integrationOverview(userId: string, timeZone: string, db: Db = sql) {
  const [sites, page, scheduled] = await Promise.all([
    listSites(userId, db),
    listResults(userId, { type: 'text', limit: 100, page: 1 }, db),
    listScheduled(userId, db),
  ]);
  const publishable = page.results.filter(isPublishable);
  const shown = publishable.slice(0, INTEGRATION_RESULTS);
  const publications = await publicationsForResults(
    userId,
    shown.map((r) => r.id),
    db,
  );
  return {
    sites: sites.map((s) => ({ id: s.id, siteName: s.siteName, isDefault: s.isDefault })),
    results: shown.map((r) => ({
      id: r.id,
      title: r.title?.trim() || r.prompt,
      createdAt: r.createdAt,
      publication: publicationView(publications.get(r.id)),
    })),
    more: publishable.length > shown.length || page.pagination.totalPages > 1,
    scheduled: {
      waiting: scheduled.waiting.slice(0, 100).map(scheduledView),
      recent: scheduled.recent.slice(0, 20).map(scheduledView),
    },
    timeZone,
  };
}

function scheduledView(p: Publication) {
  return {
    id: p.id,
    siteName: p.siteName,
    siteTimeZone: p.siteTimeZone,
    title: p.title,
    status: p.status,
    publishAt: p.publishAt,
    attempts: p.attempts,
    lastError: p.lastError,
    lastErrorCode: p.lastErrorCode,
    link: p.link,
    seoWritten: p.seoWritten,
    kind: p.kind,
  };
}

export async function cancelPublication(userId: string, id: string, db: Db = sql): Promise<Publication> {
  const { pub, jobId } = await transaction(db, async (tx) => {
    await getPublication(userId, id, tx);
    const [row] = await tx<(PublicationRow & { job_id: string | null })[]>`
      UPDATE wordpress_publications SET status = 'canceled', updated_at = now()
      WHERE user_id = ${userId} AND id = ${id} AND status = 'queued' RETURNING ${publicationColumns(tx)}, job_id`;
    if (!row) throw new WordPressServiceError('not_found');
    return { pub: toPublication(row), jobId: row.job_id };
  });
  if (jobId) await cancelJobs([jobId]);
  return pub;
}

/** Moves a waiting publication to another time: a new job, the old one canceled. */
export async function reschedulePublication(userId: string, id: string, publishAt: Date, db: Db = sql): Promise<Publication> {
  const { pub, oldJob } = await transaction(db, async (tx) => {
    const [current] = await tx<{ job_id: string | null; status: string }[]>`
      SELECT job_id, status FROM wordpress_publications WHERE user_id = ${userId} AND id = ${checkedPublicationId(id)} FOR UPDATE`;
    if (!current) throw new WordPressServiceError('publication_not_found');
    if (current.status !== 'queued') throw new WordPressServiceError('not_found');
    const jobId = crypto.randomUUID();
    const at = publishAt.getTime() > Date.now() ? publishAt : new Date();
    const [row] = await tx<PublicationRow[]>`
      UPDATE wordpress_publications SET publish_at = ${at}, job_id = ${jobId}, attempts = 0, last_error = NULL, updated_at = now()
      WHERE id = ${id} RETURNING ${publicationColumns(tx)}`;
    await enqueueMany(
      'wordpress-publish',
      [{ id: jobId, payload: { publicationId: id }, startAfter: at.getTime() > Date.now() ? at : undefined }],
      tx,
    );
    return { pub: toPublication(row!), oldJob: current.job_id };
  });
  if (oldJob) await cancelJobs([oldJob]);
  return pub;
}

/**
 * "Retry now" for a publication waiting on its backoff after failures (the site was down): a new
 * job at once, the waiting one canceled. Only a waiting publication that has failed before.
 */
export async function retryPublicationNow(userId: string, id: string, db: Db = sql): Promise<Publication> {
  const { pub, oldJob } = await transaction(db, async (tx) => {
    const [current] = await tx<{ job_id: string | null; status: string; attempts: number }[]>`
      SELECT job_id, status, attempts FROM wordpress_publications WHERE user_id = ${userId} AND id = ${checkedPublicationId(id)} FOR UPDATE`;
    if (!current) throw new WordPressServiceError('publication_not_found');
    if (current.status !== 'queued' || current.attempts === 0) throw new WordPressServiceError('not_waiting');
    const jobId = crypto.randomUUID();
    const [row] = await tx<PublicationRow[]>`
      UPDATE wordpress_publications SET publish_at = LEAST(publish_at, now()), job_id = ${jobId}, updated_at = now()
      WHERE id = ${id} RETURNING ${publicationColumns(tx)}`;
    await enqueueMany('wordpress-publish', [{ id: jobId, payload: { publicationId: id } }], tx);
    return { pub: toPublication(row!), oldJob: current.job_id };
  });
  if (oldJob) await cancelJobs([oldJob]);
  return pub;
}

/**
 * Posts still waiting to be published after `after` (a Pro period's end): cancelling Pro warns
 * that they will not be published then.
 */
export async function countScheduledAfter(userId: string, after: Date, db: Db = sql): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    SELECT count(*)::int AS n FROM wordpress_publications WHERE user_id = ${userId} AND status = 'queued' AND publish_at > ${after}`;
  return row?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// The job

type WorkRow = {
  id: string;
  user_id: string;
  site_id: string | null;
  title: string;
  content: string;
  excerpt: string;
  categories: string[];
  tags: string[];
  featured_image: Buffer | null;
  featured_image_type: string | null;
  featured_image_id: string | null;
  kind: 'post' | 'media';
  status: string;
  publish_at: Date;
  marker: string;
  job_id: string | null;
  wp_media_id: string | null;
  wp_post_id: string | null;
  update_post_id: string | null;
  wp_status: 'publish' | 'draft' | 'pending';
  subscription_status: SubscriptionStatus;
  slug: string;
  meta_description: string;
  focus_keyword: string;
  classic_html: boolean | null;
  held: boolean;
  result_id: string | null;
  /** Internal links go in: the result's run and the site both have linking on (issue 26 §5). */
  link_on: boolean;
};

export type RunOutcome = 'published' | 'skipped' | 'failed';

/** A failure that retrying cannot fix; its code explains it (wordpress-errors.ts). */
class PermanentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function errorCodeOf(error: unknown): string | null {
  if (error instanceof PermanentFailure) return error.code;
  if (error instanceof WpError) return storedErrorCode(error.problem, error.wpCode);
  return null;
}

/**
 * Carries out one publication: idempotent (a second run, or a run after a timeout, finds the post
 * the first made by its marker), holds no transaction across calls to the site. Throws on a
 * failure worth retrying (the queue retries with backoff); `final` marks the item failed instead.
 */
export async function runPublication(
  publicationId: string,
  opts: WpCallOptions & { jobId?: string; final?: boolean; now?: number } = {},
  db: Db = sql,
): Promise<RunOutcome> {
  const [row] = await db<WorkRow[]>`
    SELECT p.id, p.user_id, p.site_id, p.title, p.content, p.excerpt, p.categories, p.tags, p.featured_image,
           p.featured_image_type, p.featured_image_id, p.kind, p.status, p.publish_at, p.marker, p.job_id, p.wp_media_id, p.wp_post_id, p.update_post_id, p.wp_status, u.subscription_status,
           p.slug, p.meta_description, p.focus_keyword, s.classic_html, p.result_id,
           (p.kind = 'post' AND coalesce(s.link_enabled, false) AND coalesce((
             SELECT g.link_enabled FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
             WHERE r.user_id = p.user_id AND r.id::text = p.result_id), false)) AS link_on,
           (p.drip_plan_id IS NOT NULL AND EXISTS (
             SELECT 1 FROM wordpress_drip_schedules d WHERE d.site_id = p.site_id AND d.paused_at IS NOT NULL)) AS held
    FROM wordpress_publications p JOIN users u ON u.id = p.user_id LEFT JOIN wordpress_sites s ON s.id = p.site_id
    WHERE p.id = ${publicationId}`;
  if (!row || row.status !== 'queued') return 'skipped';
  // A moved publication has a new job; the old one (if it still runs) stands down.
  if (opts.jobId && row.job_id && opts.jobId !== row.job_id) return 'skipped';
  // The due check; `now` lets tests run a schedule of weeks on a fast clock.
  if (row.publish_at.getTime() > (opts.now ?? Date.now()) + 1000) return 'skipped';
  // Its site's drip schedule is paused: held (still queued); resuming plans it again with a new job.
  if (row.held) return 'skipped';
  try {
    if (!isPro(row.subscription_status)) throw new PermanentFailure('not_pro', 'WordPress publishing requires a Pro subscription');
    if (row.site_id === null) throw new PermanentFailure('site_removed', 'The site was removed');
    let creds: SiteCredentials;
    try {
      creds = await siteCredentials(row.user_id, Number(row.site_id), db);
    } catch {
      throw new PermanentFailure('site_removed', 'The site was removed');
    }
    // Credentials first: their error says what is wrong better than the calls after it would.
    await whoAmI(creds, opts);
    const siteId = Number(row.site_id);
    const images = ourImages(row.content, env.APP_URL);
    if (row.kind === 'media') {
      // An image result to the media library only: the publication is its first image there.
      const media = await siteMediaFor(row.user_id, siteId, creds, images, opts, db);
      const first = images.map((i) => media.get(i.id)).find(Boolean);
      if (!first) throw new PermanentFailure('no_images', 'The result has no image to upload');
      await transaction(db, async (tx) => {
        const [done] = await tx<{ resultId: string | null }[]>`
          UPDATE wordpress_publications SET status = 'published', wp_media_id = ${first.id}, wp_link = ${first.url},
            published_at = now(), attempts = attempts + 1, last_error = NULL, last_error_code = NULL, updated_at = now()
          WHERE id = ${row.id} AND status = 'queued' RETURNING result_id AS "resultId"`;
        if (done)
          await publicationFinished({ ...done, userId: row.user_id, publicationId: row.id, status: 'published', link: first.url }, tx);
      });
      return 'published';
    }
    const updating = row.update_post_id === null ? null : Number(row.update_post_id);
    let postId = row.wp_post_id === null ? null : Number(row.wp_post_id);
    // An update writes the same fields again when run twice: it needs no marker lookup.
    if (postId === null && updating === null) {
      const existing = await findPostByMarker(creds, row.marker, opts);
      if (existing) postId = existing.id;
    }
    if (postId === null) {
      // Our images go to the site's media library (once each) and the content points at them; the
      // featured image is the one chosen, else the first image of the content.
      const chosen =
        row.featured_image_id && !images.some((i) => i.id === row.featured_image_id) ? [{ id: row.featured_image_id, alt: '' }] : [];
      const media = await siteMediaFor(row.user_id, siteId, creds, [...images, ...chosen], opts, db);
      // The result's kept internal links, resolved for this site, woven into what the user is publishing.
      const linked =
        row.link_on && row.result_id
          ? (
              await publishLinks(
                { userId: row.user_id, siteId, publicationId: row.id, resultId: row.result_id, content: row.content },
                creds,
                opts,
                db,
              )
            ).html
          : row.content;
      const content = rewriteImageSources(linked, new Map([...media].map(([id, m]) => [id, m.url])), env.APP_URL);
      let mediaId = row.wp_media_id === null ? undefined : Number(row.wp_media_id);
      mediaId ??= row.featured_image_id ? media.get(row.featured_image_id)?.id : undefined;
      if (mediaId === undefined && row.featured_image && row.featured_image_type) {
        const upload =
          (await findMediaByMarker(creds, row.marker, opts)) ??
          (await uploadMedia(
            creds,
            {
              data: row.featured_image,
              mimeType: row.featured_image_type,
              filename: `${row.marker}.${extensionOf(row.featured_image_type)}`,
            },
            opts,
          ));
        mediaId = upload.id;
        await db`UPDATE wordpress_publications SET wp_media_id = ${mediaId}, updated_at = now() WHERE id = ${row.id}`;
      }
      mediaId ??= images.map((i) => media.get(i.id)?.id).find((id) => id !== undefined);
      const tagIds = row.tags.length ? await ensureTags(creds, row.tags, opts) : [];
      const fields = {
        title: wordPressText(row.title),
        // Images already point at the site's media library (rewritten above); then blocks or Classic HTML.
        content: postContent(content, {
          classicHtml: row.classic_html ?? false,
          marker: row.marker,
          // An image block names its media library item, as the block editor does.
          mediaIdOf: (src) => [...media.values()].find((m) => m.url === src)?.id,
        }),
        // No excerpt of its own: the meta description is the post's summary too.
        excerpt: wordPressText(row.excerpt || row.meta_description),
        status: row.wp_status,
        categories: row.categories.map(Number),
        tags: tagIds,
        featuredMedia: mediaId,
        slug: row.slug || undefined,
        meta: seoMeta(row),
      };
      let post;
      if (updating === null) post = await createPost(creds, fields, opts);
      else {
        try {
          post = await updatePost(creds, updating, fields, opts);
        } catch (error) {
          // The earlier post was deleted on the site: nothing to update, and retrying will not bring it back.
          if (error instanceof WpError && error.wpCode === 'rest_post_invalid_id') {
            throw new PermanentFailure('rest_post_invalid_id', error.message);
          }
          throw error;
        }
      }
      postId = post.id;
      await db`UPDATE wordpress_publications SET wp_post_id = ${postId}, updated_at = now() WHERE id = ${row.id}`;
    }
    // Confirm by reading the post back.
    const post = await getPost(creds, postId, opts);
    if (post.status !== row.wp_status) {
      throw new WpError('site_error', `The post is ${post.status}, not ${row.wp_status}`, undefined, 'status_mismatch');
    }
    // Without the companion plugin WordPress ignores the SEO meta keys: the read-back says so.
    const sent = seoMeta(row);
    const seoWritten = Object.keys(sent).length ? Object.entries(sent).every(([k, v]) => post.meta[k] === v) : null;
    await transaction(db, async (tx) => {
      const [done] = await tx<{ resultId: string | null }[]>`
        UPDATE wordpress_publications SET status = 'published', wp_post_id = ${postId}, wp_link = ${post.link},
          seo_written = ${seoWritten}, published_at = now(), attempts = attempts + 1, last_error = NULL, last_error_code = NULL, updated_at = now()
        WHERE id = ${row.id} AND status = 'queued' RETURNING result_id AS "resultId"`;
      // Links waiting for this post (or for posts this one links to) get their URL now.
      if (done) await queueLinkFixups(siteId, tx);
      if (done)
        await publicationFinished(
          {
            ...done,
            userId: row.user_id,
            publicationId: row.id,
            status: 'published',
            postId,
            link: post.link,
          },
          tx,
        );
    });
    return 'published';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const final = opts.final || error instanceof PermanentFailure;
    await transaction(db, async (tx) => {
      const [done] = await tx<{ resultId: string | null }[]>`
        UPDATE wordpress_publications SET attempts = attempts + 1, last_error = ${message.slice(0, 1000)},
          last_error_code = ${errorCodeOf(error)}, status = ${final ? 'failed' : tx`status`}, updated_at = now()
        WHERE id = ${row.id} AND status = 'queued' RETURNING result_id AS "resultId"`;
      if (done && final)
        await publicationFinished({ ...done, userId: row.user_id, publicationId: row.id, status: 'failed', error: message }, tx);
    });
    if (final) return 'failed';
    throw error;
  }
}

/**
 * The late internal links of one published post (a `wordpress-publish` job queued when their
 * targets were published on the same site): publish-links.server.ts's runLinkFixups with the site's
 * credentials. A removed site or lapsed Pro leaves the post alone.
 */
export async function runPublicationLinkFixups(
  publicationId: string,
  opts: WpCallOptions & { final?: boolean } = {},
  db: Db = sql,
): Promise<FixupOutcome> {
  return runLinkFixups(publicationId, (userId, siteId) => siteCredentials(userId, siteId, db), opts, db);
}

/**
 * The generated image of a result (generation's stored images), for the featured image: the
 * newest attempt's first image. Null when the result has none.
 */
async function resultImage(userId: string, resultId: string, db: Db = sql): Promise<{ imageId: string } | null> {
  if (!/^[0-9a-f-]{36}$/i.test(resultId)) return null;
  const [row] = await db<{ id: string }[]>`
    SELECT id FROM generation_images WHERE user_id = ${userId} AND result_id = ${resultId}
    ORDER BY attempt DESC, idx LIMIT 1`;
  return row ? { imageId: row.id } : null;
}

/** An image result as post content: each of its images in a figure, the prompt as alt text. */
export function imageResultHtml(result: Pick<Result, 'metadata' | 'content'>, alt: string): string {
  const urls = result.metadata.imageUrls.length ? result.metadata.imageUrls : result.content ? [result.content] : [];
  const text = plainText(alt).replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
  return urls.map((url) => `<figure><img src="${url}" alt="${text}"></figure>`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Our images on the site's media library

/** The marker of one of our images on a site: in its file name, so its title and slug carry it. */
function imageMarker(imageId: string): string {
  return `postforgeimg${imageId.replace(/-/g, '').toLowerCase()}`;
}

/** A readable start for the file name (ASCII words of the alt text), then the marker. */
function mediaFileName(imageId: string, alt: string, mimeType: string): string {
  const words = alt
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${words ? `${words}-` : ''}${imageMarker(imageId)}.${extensionOf(mimeType)}`;
}

/**
 * Each of these images of the user on the site's media library, uploaded at most once per (site,
 * image): a recorded upload is reused while the site still has it; else one the site already has
 * under the image's marker (an upload whose record a crash lost); else a new upload, recorded at
 * once. Images that are not the user's are left out. Returns image id → media.
 */
async function siteMediaFor(
  userId: string,
  siteId: number,
  creds: SiteCredentials,
  images: { id: string; alt: string }[],
  opts: WpCallOptions,
  db: Db = sql,
): Promise<Map<string, WpMedia>> {
  const out = new Map<string, WpMedia>();
  if (images.length === 0) return out;
  const ids = images.map((i) => i.id);
  const known = await db<{ image_id: string; wp_media_id: string; source_url: string }[]>`
    SELECT image_id, wp_media_id, source_url FROM wordpress_media WHERE site_id = ${siteId} AND image_id = ANY(${ids}::uuid[])`;
  const recorded = new Map(known.map((k) => [k.image_id, { id: Number(k.wp_media_id), url: k.source_url }]));
  for (const image of images) {
    const earlier = recorded.get(image.id);
    if (earlier) {
      // Deleted on the site since: upload it again.
      const still = await getMedia(creds, earlier.id, opts);
      if (still) {
        out.set(image.id, still);
        continue;
      }
    }
    const [stored] = await db<{ bytes: Buffer; content_type: string }[]>`
      SELECT bytes, content_type FROM generation_images WHERE id = ${image.id} AND user_id = ${userId}`;
    if (!stored) continue;
    const marker = imageMarker(image.id);
    const found = earlier ? null : await findMediaByMarker(creds, marker, opts);
    const media =
      found ??
      (await uploadMedia(
        creds,
        {
          data: stored.bytes,
          mimeType: stored.content_type,
          filename: mediaFileName(image.id, image.alt, stored.content_type),
          altText: image.alt,
        },
        opts,
      ));
    await db`
      INSERT INTO wordpress_media (site_id, image_id, wp_media_id, source_url) VALUES (${siteId}, ${image.id}, ${media.id}, ${media.url})
      ON CONFLICT (site_id, image_id) DO UPDATE SET wp_media_id = EXCLUDED.wp_media_id, source_url = EXCLUDED.source_url, created_at = now()`;
    out.set(image.id, media);
  }
  return out;
}

function extensionOf(mime: string): string {
  return mime === 'image/jpeg' ? 'jpg' : mime === 'image/webp' ? 'webp' : mime === 'image/gif' ? 'gif' : 'png';
}
