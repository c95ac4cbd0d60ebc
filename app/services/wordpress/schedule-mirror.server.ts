import { sql, type Db } from '../../../db/client';
import { siteCredentials } from './sites.server';
import type { SiteCredentials, WpCallOptions } from './client.server';
import { findPostByMarker } from './client-content.server';
import { readPostSchedule, trashPost, writePostSchedule } from './client-schedule.server';
import { followPublished, followRemoved, PLACE_AHEAD_MS, placeable, siteSecond } from './placed-posts.server';
import { runPublication } from './publish-job.server';

// A scheduled post's place in WordPress's own schedule, kept in step with ours (a `mirror` job of
// the `wordpress-publish` queue, queued when a post is scheduled, moved, canceled, held or resumed):
// made there as `future` at its time, moved there when moved here, taken off the schedule (a draft)
// while its drip schedule is paused, trashed when canceled here. What the blogger did in wp-admin
// meanwhile wins where it settles the post: published there, or deleted or trashed there.

type MirrorRow = {
  id: string;
  user_id: string;
  site_id: string | null;
  status: 'queued' | 'published' | 'failed' | 'canceled';
  kind: string;
  wp_status: string;
  update_post_id: string | null;
  publish_at: Date;
  wp_post_id: string | null;
  wp_date: Date | null;
  marker: string;
  held: boolean;
};

export type MirrorOutcome = 'placed' | 'moved' | 'unscheduled' | 'trashed' | 'followed' | 'skipped';

/**
 * Makes the site's post match our record. Idempotent; throws when the site cannot be reached (the
 * job retries with backoff; the job at the post's time publishes it either way).
 */
export async function mirrorSchedule(
  publicationId: string,
  opts: WpCallOptions & { now?: number } = {},
  db: Db = sql,
): Promise<MirrorOutcome> {
  const [row] = await db<MirrorRow[]>`
    SELECT p.id, p.user_id, p.site_id, p.status, p.kind, p.wp_status, p.update_post_id, p.publish_at, p.wp_post_id, p.wp_date, p.marker,
      (p.drip_plan_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM wordpress_drip_schedules d WHERE d.site_id = p.site_id AND d.paused_at IS NOT NULL)) AS held
    FROM wordpress_publications p WHERE p.id = ${publicationId}`;
  if (!row || row.site_id === null || !placeable(row) || (row.status !== 'queued' && row.status !== 'canceled')) return 'skipped';
  const now = opts.now ?? Date.now();
  let creds: SiteCredentials;
  try {
    creds = await siteCredentials(row.user_id, Number(row.site_id), db);
  } catch {
    return 'skipped';
  }
  // A post being made when this was queued may not have its id recorded yet: its marker finds it.
  let postId = row.wp_post_id === null ? null : Number(row.wp_post_id);
  if (postId === null && (row.status === 'canceled' || row.wp_date !== null || row.held)) {
    postId = (await findPostByMarker(creds, row.marker, opts))?.id ?? null;
  }
  if (postId === null) {
    if (row.status !== 'queued' || row.held) return 'skipped';
    return (await runPublication(row.id, { ...opts, place: true }, db)) === 'placed' ? 'placed' : 'skipped';
  }
  const post = await readPostSchedule(creds, postId, opts);
  if (!post) {
    await followRemoved(row, db);
    return 'followed';
  }
  if (post.status === 'publish' || post.status === 'private') {
    await followPublished(row, post, db);
    return 'followed';
  }
  if (row.status === 'canceled') {
    await trashPost(creds, postId, opts);
    await db`UPDATE wordpress_publications SET wp_date = NULL, updated_at = now() WHERE id = ${row.id}`;
    return 'trashed';
  }
  if (row.held) {
    // Paused: nothing may go out, so WP-Cron must not publish it either; resuming schedules it again.
    if (post.status === 'future') await writePostSchedule(creds, postId, { status: 'draft' }, opts);
    await db`UPDATE wordpress_publications SET wp_post_id = ${postId}, wp_date = NULL, updated_at = now() WHERE id = ${row.id}`;
    return 'unscheduled';
  }
  // Due soon: the job at its time publishes it (moving it there now could race that job).
  if (row.publish_at.getTime() <= now + PLACE_AHEAD_MS) return 'skipped';
  const at = siteSecond(row.publish_at);
  if (post.status === 'future' && post.date?.getTime() === at.getTime() && row.wp_date?.getTime() === at.getTime()) return 'skipped';
  await writePostSchedule(creds, postId, { status: 'future', date: at }, opts);
  await db`UPDATE wordpress_publications SET wp_post_id = ${postId}, wp_date = ${at}, updated_at = now()
    WHERE id = ${row.id} AND status = 'queued' AND publish_at = ${row.publish_at}`;
  return 'moved';
}
