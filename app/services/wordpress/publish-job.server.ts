import { isPro, type SubscriptionStatus } from '~/catalogue';
import { sql, transaction, type Db } from '../../../db/client';
import { storedErrorCode } from '~/utils/wordpress-errors';
import { env } from '~/runtime/env.server';
import { ourImages, rewriteImageSources } from '~/utils/wordpress-images';
import { publicationFinished } from '../webhooks.server';
import { heldForReview } from './review-gate.server';
import { publishLinks, queueLinkFixups, runLinkFixups, type FixupOutcome } from './links.server';
import { siteCredentials } from './sites.server';
import { postContent, seoMeta, wordPressText } from './content.server';
import { attachMediaToPost, markerDescription, mediaFileName, siteMediaFor } from './media.server';
import { WpError, type SiteCredentials, type WpCallOptions } from './client.server';
import { postEditLink, wpGmt } from './client-schedule.server';
import { PLACE_AHEAD_MS, placeable, siteSecond, watchPlacedPost } from './placed-posts.server';
import { queueScheduleMirror } from './publish-queue.server';
import {
  canPostScripts,
  createPost,
  ensureTags,
  findMediaByMarker,
  findPostByMarker,
  getPost,
  updatePost,
  uploadMedia,
  whoAmI,
} from './client-content.server';

// The `wordpress-publish` job: one publication carried out on its site, or the late internal links
// of a published post. A marker stored with the post makes a retry find what an earlier attempt made.

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
  /** The date the post was placed at on the site's schedule (`future`), when it was. */
  wp_date: Date | null;
  update_post_id: string | null;
  wp_status: 'publish' | 'draft' | 'pending';
  subscription_status: SubscriptionStatus;
  slug: string;
  meta_description: string;
  focus_keyword: string;
  seo_title: string;
  classic_html: boolean | null;
  held: boolean;
  result_id: string | null;
  /** Internal links go in: the result's run and the site both have linking on. */
  link_on: boolean;
};

/** placed: made on the site as a scheduled (`future`) post, still waiting here (`place`). */
export type RunOutcome = 'published' | 'skipped' | 'failed' | 'placed';

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
  opts: WpCallOptions & {
    jobId?: string;
    final?: boolean;
    now?: number;
    /** Make the post now as a scheduled (`future`) post at its time, on the site's own schedule. */
    place?: boolean;
  } = {},
  db: Db = sql,
): Promise<RunOutcome> {
  const [row] = await db<WorkRow[]>`
    SELECT p.id, p.user_id, p.site_id, p.title, p.content, p.excerpt, p.categories, p.tags, p.featured_image,
           p.featured_image_type, p.featured_image_id, p.kind, p.status, p.publish_at, p.marker, p.job_id, p.wp_media_id, p.wp_post_id, p.wp_date, p.update_post_id, p.wp_status, u.subscription_status,
           p.slug, p.meta_description, p.focus_keyword, p.seo_title, s.classic_html, p.result_id,
           (p.kind = 'post' AND coalesce(s.link_enabled, false) AND coalesce((
             SELECT g.link_enabled FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
             WHERE r.user_id = p.user_id AND r.id::text = p.result_id), false)) AS link_on,
           (p.drip_plan_id IS NOT NULL AND EXISTS (
             SELECT 1 FROM wordpress_drip_schedules d WHERE d.site_id = p.site_id AND d.paused_at IS NOT NULL)) AS held
    FROM wordpress_publications p JOIN users u ON u.id = p.user_id LEFT JOIN wordpress_sites s ON s.id = p.site_id
    WHERE p.id = ${publicationId}`;
  if (!row || row.status !== 'queued') return 'skipped';
  if (opts.place) {
    // Placed once, well ahead of its time (nearer it, the job at its time makes it).
    if (!placeable(row) || row.wp_post_id !== null || row.publish_at.getTime() <= (opts.now ?? Date.now()) + PLACE_AHEAD_MS)
      return 'skipped';
  } else {
    // A moved publication has a new job; the old one (if it still runs) stands down.
    if (opts.jobId && row.job_id && opts.jobId !== row.job_id) return 'skipped';
    // The due check; `now` lets tests run a schedule of weeks on a fast clock.
    if (row.publish_at.getTime() > (opts.now ?? Date.now()) + 1000) return 'skipped';
  }
  // Its site's drip schedule is paused: held (still queued); resuming plans it again with a new job.
  if (row.held) return 'skipped';
  // Gated and its post neither passes nor is approved: it waits (approving gives it a new job).
  if (await heldForReview(publicationId, db)) return 'skipped';
  try {
    // Publishing needs Pro when the post is made: a post already made on the site's schedule while
    // Pro goes out at its time after Pro ended too (the watchdog only keeps WordPress's own promise).
    if (!isPro(row.subscription_status) && row.wp_date === null)
      throw new PermanentFailure('not_pro', 'WordPress publishing requires a Pro subscription');
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
    // Uploaded files are named after the title the post goes out under.
    const images = ourImages(row.content, env.APP_URL).map((i) => ({ ...i, title: row.title }));
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
          await publicationFinished(
            { ...done, userId: row.user_id, publicationId: row.id, status: 'published', link: first.url, postStatus: null },
            tx,
          );
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
    // Made before this run: placed on the site's schedule, or by an attempt that timed out.
    const madeBefore = postId !== null;
    const placeAt = siteSecond(row.publish_at);
    if (postId === null) {
      // Our images go to the site's media library (once each) and the content points at them; the
      // featured image is the one chosen, else the first image of the content.
      const chosen =
        row.featured_image_id && !images.some((i) => i.id === row.featured_image_id)
          ? [{ id: row.featured_image_id, alt: '', title: row.title }]
          : [];
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
              filename: mediaFileName(row.title, row.featured_image_type),
              altText: row.title,
              title: row.title,
              description: markerDescription(row.marker),
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
          faqSchema: await canPostScripts(creds, opts),
        }),
        // No excerpt of its own: the meta description is the post's summary too.
        excerpt: wordPressText(row.excerpt || row.meta_description),
        status: opts.place ? ('future' as const) : row.wp_status,
        ...(opts.place ? { date: wpGmt(placeAt) } : {}),
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
      await attachMediaToPost(creds, [...[...media.values()].map((m) => m.id), ...(mediaId ? [mediaId] : [])], postId, opts);
    }
    if (opts.place) {
      // Canceled or moved while it was being made: the mirror puts it right (trashed, or moved).
      const [still] = await db<{ same: boolean }[]>`
        UPDATE wordpress_publications SET wp_post_id = ${postId}, wp_date = ${madeBefore ? null : placeAt}, updated_at = now()
        WHERE id = ${row.id} RETURNING (status = 'queued' AND publish_at = ${row.publish_at}) AS same`;
      if (madeBefore || !still?.same) await queueScheduleMirror([row.id], db);
      return 'placed';
    }
    // At its time, a post made before (on the site's schedule): read back and published if WordPress
    // has not; what the blogger changed in wp-admin wins.
    if (madeBefore && updating === null && row.wp_status === 'publish') {
      const seen = await watchPlacedPost(row, creds, postId, opts, db);
      if (seen === 'followed') return 'skipped';
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
      // A draft or a post pending review has no address readers can open yet: its editor's is kept.
      const link = post.status === 'publish' ? post.link : postEditLink(creds.siteUrl, postId);
      const [done] = await tx<{ resultId: string | null }[]>`
        UPDATE wordpress_publications SET status = 'published', wp_post_id = ${postId}, wp_link = ${link}, wp_date = NULL,
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
            link,
            postStatus: post.status,
          },
          tx,
        );
    });
    return 'published';
  } catch (error) {
    // Placing ahead of time is retried by its own job; the record waits for its time untouched.
    if (opts.place) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const final = opts.final || error instanceof PermanentFailure;
    const errorCode = errorCodeOf(error);
    await transaction(db, async (tx) => {
      const [done] = await tx<{ resultId: string | null }[]>`
        UPDATE wordpress_publications SET attempts = attempts + 1, last_error = ${message.slice(0, 1000)},
          last_error_code = ${errorCode}, status = ${final ? 'failed' : tx`status`}, updated_at = now()
        WHERE id = ${row.id} AND status = 'queued' RETURNING result_id AS "resultId"`;
      if (done && final)
        await publicationFinished({ ...done, userId: row.user_id, publicationId: row.id, status: 'failed', errorCode, error: message }, tx);
    });
    if (final) return 'failed';
    throw error;
  }
}

/**
 * The late internal links of one published post (a `wordpress-publish` job queued when their
 * targets were published on the same site): links.server.ts's runLinkFixups with the site's
 * credentials. A removed site or lapsed Pro leaves the post alone.
 */
export async function runPublicationLinkFixups(
  publicationId: string,
  opts: WpCallOptions & { final?: boolean } = {},
  db: Db = sql,
): Promise<FixupOutcome> {
  return runLinkFixups(publicationId, (userId, siteId) => siteCredentials(userId, siteId, db), opts, db);
}
