import { sql, type Db } from '../../../db/client';
import type { SiteCredentials, WpCallOptions } from './client.server';
import { findMediaByMarker, getMedia, uploadMedia, type WpMedia } from './client-content.server';

// Our images (generation's stored images) on a site's media library: each uploaded at most once per
// site (wordpress_media), found again by the marker in its file name after a lost record.

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
export async function siteMediaFor(
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

export function extensionOf(mime: string): string {
  return mime === 'image/jpeg' ? 'jpg' : mime === 'image/webp' ? 'webp' : mime === 'image/gif' ? 'gif' : 'png';
}
