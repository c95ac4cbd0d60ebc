import { sql, type Db } from '../../../db/client';
import type { SiteCredentials, WpCallOptions } from './client.server';
import { getLogger } from '~/runtime/logger.server';
import { imageBytesOf } from '../images.server';
import { findMediaByMarker, getMedia, setMediaParent, uploadMedia, type WpMedia } from './client-content.server';

// Our images (generation's stored images) on a site's media library: each uploaded at most once per
// site (wordpress_media), found again after a lost record by the marker in its description. Files
// are named after the post's title, and the media item is attached to the post once it exists.

/**
 * The generated image of a result (generation's stored images), for the featured image: the
 * newest attempt's first image. Null when the result has none.
 */
export async function resultImage(userId: string, resultId: string, db: Db = sql): Promise<{ imageId: string } | null> {
  if (!/^[0-9a-f-]{36}$/i.test(resultId)) return null;
  const [row] = await db<{ id: string }[]>`
    SELECT id FROM generation_images WHERE user_id = ${userId} AND result_id = ${resultId}
    ORDER BY attempt DESC, idx LIMIT 1`;
  return row ? { imageId: row.id } : null;
}

/** The marker of one of our images on a site: in its description, where WordPress's search finds it. */
function imageMarker(imageId: string): string {
  return `postforgeimg${imageId.replace(/-/g, '').toLowerCase()}`;
}

/**
 * What a media item of ours says in its description: the marker as an HTML comment (kept by
 * WordPress, found by its media search, never shown to readers).
 */
export function markerDescription(marker: string): string {
  return `<!-- ${marker} -->`;
}

/**
 * A file name from the post's title, as a search engine reads it: its ASCII words, lowercase, joined
 * by hyphens (accents dropped); "image" when none are left (a title in Chinese). WordPress adds -2,
 * -3... when the name is taken.
 */
export function mediaFileName(title: string, mimeType: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${words || 'image'}.${extensionOf(mimeType)}`;
}

/**
 * Each of these images of the user on the site's media library, uploaded at most once per (site,
 * image): a recorded upload is reused while the site still has it; else one the site already has
 * under the image's marker (an upload whose record a crash lost); else a new upload named after
 * `title` (the post's), its alt text the image's alt or else that title, recorded at once. Images
 * that are not the user's are left out. Returns image id → media.
 */
export async function siteMediaFor(
  userId: string,
  siteId: number,
  creds: SiteCredentials,
  images: { id: string; alt: string; title: string }[],
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
    // From Postgres or object storage; storage failing throws, and the publish job is retried.
    const stored = await imageBytesOf(userId, image.id, db);
    if (!stored) continue;
    const marker = imageMarker(image.id);
    const found = earlier ? null : await findMediaByMarker(creds, marker, opts);
    const media =
      found ??
      (await uploadMedia(
        creds,
        {
          data: stored.bytes,
          mimeType: stored.contentType,
          filename: mediaFileName(image.title, stored.contentType),
          altText: image.alt || image.title,
          title: image.title,
          description: markerDescription(marker),
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

/**
 * Attaches these media items to the post (their parent), as an upload from its editor would be; an
 * item already attached to another post stays there (an image shared by two posts). Best effort: the
 * post is published either way, so a failure is logged, not retried.
 */
export async function attachMediaToPost(creds: SiteCredentials, mediaIds: number[], postId: number, opts: WpCallOptions): Promise<void> {
  for (const id of new Set(mediaIds)) {
    try {
      const media = await getMedia(creds, id, opts);
      if (media && media.post === 0) await setMediaParent(creds, id, postId, opts);
    } catch (err) {
      getLogger().warn({ err: String(err), mediaId: id, postId }, 'could not attach the media item to its post');
    }
  }
}

export function extensionOf(mime: string): string {
  return mime === 'image/jpeg' ? 'jpg' : mime === 'image/webp' ? 'webp' : mime === 'image/gif' ? 'gif' : 'png';
}
