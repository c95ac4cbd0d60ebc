import type { Db } from '../../../db/client';
import type { PostStatus } from '~/utils/publication-state';

// A publication as every WordPress module reads it: the row's columns, and the shape pages and the
// API show. Its own module so the refusals (errors.server.ts) can name it without a circle.

export type Publication = {
  id: string;
  siteId: number | null;
  siteName: string;
  /** The site's own time zone when known (scheduled times are also shown in it when it differs). */
  siteTimeZone: string | null;
  resultId: string | null;
  title: string;
  status: 'queued' | 'published' | 'failed' | 'canceled';
  /** The status the post has (or is to get) on the site: a draft or pending post is not published. */
  postStatus: PostStatus;
  /** Waiting here and already on the site as a scheduled (`future`) post, so wp-admin shows it. */
  scheduledOnSite: boolean;
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

export type PublicationRow = {
  id: string;
  site_id: string | null;
  site_name: string;
  site_time_zone: string | null;
  result_id: string | null;
  title: string;
  status: Publication['status'];
  wp_status: PostStatus;
  wp_date: Date | null;
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

export function toPublication(r: PublicationRow): Publication {
  return {
    id: r.id,
    siteId: r.site_id === null ? null : Number(r.site_id),
    siteName: r.site_name,
    siteTimeZone: r.site_time_zone,
    resultId: r.result_id,
    title: r.title,
    status: r.status,
    postStatus: r.wp_status,
    scheduledOnSite: r.status === 'queued' && r.wp_date !== null,
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
export const publicationColumns = (db: Db) =>
  db`id, site_id, site_name, result_id, title, status, wp_status, wp_date, publish_at, attempts, last_error, last_error_code, update_post_id, kind,
    wp_post_id, wp_link, published_at, seo_written,
    (SELECT s.time_zone FROM wordpress_sites s WHERE s.id = site_id) AS site_time_zone`;
