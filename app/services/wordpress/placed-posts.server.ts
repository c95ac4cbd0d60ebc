import crypto from 'node:crypto';
import { transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { publicationFinished } from '../webhooks.server';
import { queueLinkFixups } from './links.server';
import type { SiteCredentials, WpCallOptions } from './client.server';
import { postEditLink, readPostSchedule, writePostSchedule, type PostSchedule } from './client-schedule.server';

// Scheduled posts that are already in WordPress as `future` (placed there when scheduled, so
// wp-admin and editorial calendars show them). WP-Cron only runs when someone visits the site, so
// our job at the post's time is the watchdog: it reads the post back and publishes it if WordPress
// has not. What the blogger changed in wp-admin wins: our record follows the site.

/** A post is placed on the site's schedule only when its time is at least this far off. */
export const PLACE_AHEAD_MS = 2 * 60_000;

/** WordPress keeps dates to the second. */
export function siteSecond(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

/**
 * Whether a publication's post goes on the site's schedule ahead of its time: a new post to be
 * published (a draft or pending post has no schedule in WordPress, and an update must not take a
 * live post off the site until its time).
 */
export function placeable(row: { kind: string; wp_status: string; update_post_id: string | null }): boolean {
  return row.kind === 'post' && row.wp_status === 'publish' && row.update_post_id === null;
}

type Watched = { id: string; user_id: string; site_id: string | null; wp_date: Date | null };

/** The site's post was deleted or trashed there: the waiting record ends canceled. */
export async function followRemoved(row: Pick<Watched, 'id'>, db: Db) {
  await db`
    UPDATE wordpress_publications SET status = 'canceled', wp_date = NULL, last_error = 'The post was deleted on the site',
      last_error_code = 'removed_on_site', updated_at = now()
    WHERE id = ${row.id} AND status IN ('queued', 'canceled')`;
}

/** The post went out on the site (published there early, or before a cancel here reached it). */
export async function followPublished(row: Watched, post: PostSchedule, db: Db) {
  await transaction(db, async (tx) => {
    const [done] = await tx<{ resultId: string | null }[]>`
      UPDATE wordpress_publications SET status = 'published', wp_post_id = ${post.id}, wp_link = ${post.link}, wp_date = NULL,
        published_at = ${post.date ?? new Date()}, last_error = NULL, last_error_code = NULL, updated_at = now()
      WHERE id = ${row.id} AND status IN ('queued', 'canceled') RETURNING result_id AS "resultId"`;
    if (!done) return;
    if (row.site_id !== null) await queueLinkFixups(Number(row.site_id), tx);
    await publicationFinished(
      {
        ...done,
        userId: row.user_id,
        publicationId: row.id,
        status: 'published',
        postId: post.id,
        link: post.link,
        postStatus: post.status,
      },
      tx,
    );
  });
}

/** The post was moved on the site (wp-admin): ours moves to its date, with a new job then. */
export async function followMoved(row: Pick<Watched, 'id'>, to: Date, db: Db) {
  await transaction(db, async (tx) => {
    const jobId = crypto.randomUUID();
    const [moved] = await tx`
      UPDATE wordpress_publications SET publish_at = ${to}, wp_date = ${to}, job_id = ${jobId}, updated_at = now()
      WHERE id = ${row.id} AND status = 'queued' RETURNING id`;
    if (moved) await enqueueMany('wordpress-publish', [{ id: jobId, payload: { publicationId: row.id }, startAfter: to }], tx);
  });
}

/**
 * At its time, a post already made on the site (placed as `future`, or made by an earlier
 * attempt): 'go' when it is published there now (by WordPress, by the blogger, or by us here, when
 * it still waited), 'followed' when the site says otherwise and our record followed it: deleted or
 * trashed (canceled), moved to a later time (moved), or taken off the schedule as a draft or
 * pending post (kept as that, with its edit link).
 */
export async function watchPlacedPost(
  row: Watched,
  site: SiteCredentials,
  postId: number,
  opts: WpCallOptions & { now?: number },
  db: Db,
): Promise<'go' | 'followed'> {
  const now = opts.now ?? Date.now();
  const post = await readPostSchedule(site, postId, opts);
  if (!post) {
    await followRemoved(row, db);
    return 'followed';
  }
  if (post.status === 'publish' || post.status === 'private') return 'go';
  const movedThere = row.wp_date !== null && post.date !== null && Math.abs(post.date.getTime() - row.wp_date.getTime()) >= 1000;
  if (post.status === 'future' && movedThere && post.date!.getTime() > now + 60_000) {
    await followMoved(row, post.date!, db);
    return 'followed';
  }
  if ((post.status === 'draft' || post.status === 'pending') && row.wp_date !== null) {
    // Taken off the schedule in wp-admin: it stays what the blogger made it.
    await db`
      UPDATE wordpress_publications SET status = 'published', wp_status = ${post.status}, wp_post_id = ${post.id},
        wp_link = ${postEditLink(site.siteUrl, post.id)}, wp_date = NULL, published_at = now(), updated_at = now()
      WHERE id = ${row.id} AND status = 'queued'`;
    return 'followed';
  }
  // Still waiting on WP-Cron (or a draft we took off the schedule while paused): published now.
  const late = post.date && post.date.getTime() > now ? { date: new Date(now) } : {};
  await writePostSchedule(site, postId, { status: 'publish', ...late }, opts);
  return 'go';
}
