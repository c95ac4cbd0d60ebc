import sanitizeHtml from 'sanitize-html';
import { htmlToBlocks } from '~/utils/gutenberg-blocks';
import { faqScript } from '~/utils/faq-schema';
import type { Result } from '../results.server';
import { plainText } from '../providers.server';

// What a post carries to WordPress: the content made safe, as Gutenberg blocks or Classic HTML, the
// title and excerpt as plain text, the SEO fields as the plugins' post meta, an image result as HTML.

/** A full HTML document (an export or a paste) is reduced to its body; then only safe markup is kept. */
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
 * after any rewriting of its image URLs, so the two steps compose. With `faqSchema`, a post with a
 * FAQ section ends with its FAQPage JSON-LD (a Custom HTML block): only for an account WordPress
 * lets post scripts (unfiltered_html), since for any other it strips the script and leaves its JSON
 * showing as text.
 */
export function postContent(
  html: string,
  opts: { classicHtml: boolean; marker: string; mediaIdOf?: (src: string) => number | undefined; faqSchema?: boolean },
): string {
  const clean = prepareContent(html);
  const script = opts.faqSchema ? faqScript(clean) : null;
  if (opts.classicHtml) return `${clean}\n${script ? `${script}\n` : ''}${markerComment(opts.marker)}`;
  const blocks = htmlToBlocks(clean, { marker: opts.marker, mediaIdOf: opts.mediaIdOf });
  return script ? `${blocks}\n\n<!-- wp:html -->\n${script}\n<!-- /wp:html -->` : blocks;
}

/**
 * The post meta keys of Yoast SEO and Rank Math for the meta description, focus keyword and SEO
 * title: what the companion plugin (public/wordpress/postforge-seo.php) registers for the REST API.
 */
export const SEO_META_KEYS = {
  description: ['_yoast_wpseo_metadesc', 'rank_math_description'],
  focusKeyword: ['_yoast_wpseo_focuskw', 'rank_math_focus_keyword'],
  seoTitle: ['_yoast_wpseo_title', 'rank_math_title'],
} as const;

export function seoMeta(row: { meta_description: string; focus_keyword: string; seo_title?: string }): Record<string, string> {
  const meta: Record<string, string> = {};
  if (row.meta_description) for (const k of SEO_META_KEYS.description) meta[k] = row.meta_description;
  if (row.focus_keyword) for (const k of SEO_META_KEYS.focusKeyword) meta[k] = row.focus_keyword;
  if (row.seo_title) for (const k of SEO_META_KEYS.seoTitle) meta[k] = row.seo_title;
  return meta;
}

/** An image result as post content: each of its images in a figure, the prompt as alt text. */
export function imageResultHtml(result: Pick<Result, 'metadata' | 'content'>, alt: string): string {
  const urls = result.metadata.imageUrls.length ? result.metadata.imageUrls : result.content ? [result.content] : [];
  const text = plainText(alt).replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
  return urls.map((url) => `<figure><img src="${url}" alt="${text}"></figure>`).join('\n');
}
