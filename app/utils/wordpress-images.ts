// Our own images inside a post's HTML (`<img src="/images/{id}">`, or the same under APP_URL), which
// do not load on a WordPress site: found in order, then rewritten to the site's media URLs. HTML in,
// HTML out, so it composes with any other step over the same content (block markup keeps its <img>).

const IMG_TAG = /<img\b[^>]*>/gi;
const SRC_ATTR = /(\ssrc\s*=\s*)(["'])(.*?)\2/i;
const ALT_ATTR = /\salt\s*=\s*(["'])(.*?)\1/i;
const OUR_PATH = /\/images\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function decodeAttr(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The image id when `src` is one of our image URLs (relative, or absolute on APP_URL's origin). */
export function ourImageId(src: string, appUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(decodeAttr(src.trim()), appUrl);
  } catch {
    return null;
  }
  if (url.origin !== new URL(appUrl).origin || url.search || url.hash) return null;
  return OUR_PATH.exec(url.pathname)?.[1]?.toLowerCase() ?? null;
}

/** Our images in the HTML, in order of appearance, each once, with the alt text of its first use. */
export function ourImages(html: string, appUrl: string): { id: string; alt: string }[] {
  const seen = new Map<string, string>();
  for (const tag of html.match(IMG_TAG) ?? []) {
    const src = SRC_ATTR.exec(tag)?.[3];
    const id = src === undefined ? null : ourImageId(src, appUrl);
    if (id && !seen.has(id)) seen.set(id, decodeAttr(ALT_ATTR.exec(tag)?.[2] ?? ''));
  }
  return [...seen].map(([id, alt]) => ({ id, alt }));
}

/**
 * Each of our images whose id is in `media` gets that URL as its src; every other attribute (alt
 * text first) and every other image stays as it was.
 */
export function rewriteImageSources(html: string, media: ReadonlyMap<string, string>, appUrl: string): string {
  return html.replace(IMG_TAG, (tag) =>
    tag.replace(SRC_ATTR, (whole, before: string, _quote: string, src: string) => {
      const id = ourImageId(src, appUrl);
      const url = id ? media.get(id) : undefined;
      return url ? `${before}"${escapeAttr(url)}"` : whole;
    }),
  );
}

/**
 * Our images whose alt text is `from` (the title they were generated under) get `to` instead, so the
 * alt text follows the title a post goes out under; any other alt text is the user's and stays.
 */
export function retitleImageAlts(html: string, from: string, to: string, appUrl: string): string {
  if (!from.trim() || from === to) return html;
  return html.replace(IMG_TAG, (tag) => {
    const src = SRC_ATTR.exec(tag)?.[3];
    const alt = ALT_ATTR.exec(tag);
    if (src === undefined || !ourImageId(src, appUrl) || !alt || decodeAttr(alt[2]!).trim() !== from.trim()) return tag;
    return tag.replace(ALT_ATTR, ` alt="${escapeAttr(to)}"`);
  });
}
