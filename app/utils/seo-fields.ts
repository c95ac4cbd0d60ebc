import { z } from 'zod';
import { decodeEntities } from './html-entities';

// A text result's SEO fields: a meta description (at most 155 characters), a slug, a focus keyword
// and an SEO title (at most 60 characters, what search results show instead of the post's title). The model writes them after the article in a small block (requested by
// buildTextPrompt); what it leaves out is derived: the slug from the title, the description from
// the first paragraph cut at a word. Pure: the worker, the result editor and publishing share it.

export const META_DESCRIPTION_MAX = 155;
export const SLUG_MAX = 190;
export const FOCUS_KEYWORD_MAX = 100;
/** Search results cut titles at about 60 characters (Yoast's and Rank Math's own advice). */
export const SEO_TITLE_MAX = 60;

export type SeoFields = { metaDescription: string; slug: string; focusKeyword: string; seoTitle: string };

/** The line that starts the block after the article (the prompt asks for exactly this). */
export const SEO_BLOCK_START = '---SEO---';

/** What the prompt adds so the model writes the fields with the article (no extra call). */
export const SEO_PROMPT = [
  `After the article, write a line with exactly "${SEO_BLOCK_START}" and then four lines:`,
  `"SEO title: <at most ${SEO_TITLE_MAX} characters>",`,
  `"Meta description: <at most ${META_DESCRIPTION_MAX} characters>",`,
  '"Slug: <lowercase-words-with-hyphens>",',
  '"Focus keyword: <the main search phrase>".',
].join(' ');

const LABELS: [keyof SeoFields, RegExp][] = [
  ['metaDescription', /^meta[\s_-]*description$/i],
  ['slug', /^(url[\s_-]*)?slug$/i],
  ['focusKeyword', /^focus[\s_-]*(key[\s_-]*(word|phrase)|keyword)$/i],
  ['seoTitle', /^(seo|meta)[\s_-]*title$/i],
];

/**
 * Splits the model's answer into the article and the SEO fields it wrote after SEO_BLOCK_START
 * (tolerating Markdown emphasis and list marks around the labels). Without the block, the answer
 * is the article and the fields are empty.
 */
export function splitSeoBlock(answer: string): { article: string; seo: Partial<SeoFields> } {
  const lines = answer.split('\n');
  const marks = lines.map((l, i) => (l.replace(/[*_`#>\s]/g, '').toUpperCase() === SEO_BLOCK_START ? i : -1));
  const start = Math.max(...marks);
  if (start < 0) return { article: answer, seo: {} };
  const seo: Partial<SeoFields> = {};
  for (const line of lines.slice(start + 1)) {
    const m = /^[\s>*_\-`]*([A-Za-z][A-Za-z _-]*?)[\s*_`]*:[\s*_`]*(.*?)[\s*_`]*$/.exec(line);
    if (!m) continue;
    const key = LABELS.find(([, re]) => re.test(m[1]!.trim()))?.[0];
    if (key && !seo[key]) seo[key] = m[2]!.replace(/^["'“]|["'”]$/g, '').trim();
  }
  return { article: lines.slice(0, start).join('\n').trimEnd(), seo };
}

/** A slug: lowercase letters and digits (any script) joined by hyphens, accents dropped. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return cutSlug(slug);
}

function cutSlug(slug: string): string {
  if ([...slug].length <= SLUG_MAX) return slug;
  const cut = [...slug].slice(0, SLUG_MAX).join('');
  const hyphen = cut.lastIndexOf('-');
  return (hyphen > SLUG_MAX / 2 ? cut.slice(0, hyphen) : cut).replace(/-+$/, '');
}

/** Text on one line cut at a word to at most `max` characters (an ellipsis when cut). */
export function truncateAtWord(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  if (chars.length <= max) return clean;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  // No space in reach (CJK text, one long word): cut at the character.
  const cut = space > max / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.–—-]+$/, '')}…`;
}

/** The first paragraph's text of article HTML (the description's fallback). */
export function firstParagraphText(html: string): string {
  for (const m of html.matchAll(/<p[^>]*>([\s\S]*?)<\/p>/gi)) {
    // Inside a paragraph tags are inline (no space of their own), but a line break is one.
    const text = decodeEntities(m[1]!.replace(/<br\s*\/?>/gi, ' ').replace(/<[^>]*>/g, ''))
      .replace(/\s+/g, ' ')
      .trim();
    if (text) return text;
  }
  return decodeEntities(html.replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cleans what a model or a form gave: one line each, within the limits; empty when absent. */
export function cleanSeo(seo: Partial<SeoFields>): SeoFields {
  return {
    metaDescription: truncateAtWord(seo.metaDescription ?? '', META_DESCRIPTION_MAX),
    slug: slugify(seo.slug ?? ''),
    focusKeyword: [...(seo.focusKeyword ?? '').replace(/\s+/g, ' ').trim()].slice(0, FOCUS_KEYWORD_MAX).join(''),
    seoTitle: truncateAtWord(seo.seoTitle ?? '', SEO_TITLE_MAX),
  };
}

/**
 * The fields to use: the given ones (cleaned) and, for each empty one, its fallback: the slug from
 * the title, the description from the first paragraph, the keyword from the topic's keywords (the
 * first of them) or the topic itself when short, the SEO title from the title cut at a word.
 */
export function seoWithFallbacks(
  given: Partial<SeoFields> | null | undefined,
  article: { title: string; html: string; topic?: string; keywords?: string },
): SeoFields {
  const seo = cleanSeo(given ?? {});
  const keyword =
    article.keywords?.split(/[,;\n]/)[0]?.trim() || (article.topic && article.topic.trim().length <= 60 ? article.topic.trim() : '');
  return {
    metaDescription: seo.metaDescription || truncateAtWord(firstParagraphText(article.html), META_DESCRIPTION_MAX),
    slug: seo.slug || slugify(article.title),
    focusKeyword: seo.focusKeyword || cleanSeo({ focusKeyword: keyword }).focusKeyword,
    seoTitle: seo.seoTitle || truncateAtWord(article.title, SEO_TITLE_MAX),
  };
}

/**
 * The SEO fields of a form or JSON body (the result editor, the publish forms): each optional (an
 * absent one is left as it is), the description at most META_DESCRIPTION_MAX characters, the SEO
 * title at most SEO_TITLE_MAX.
 */
export function seoFieldsSchema(descriptionTooLong: string, seoTitleTooLong: string) {
  return {
    metaDescription: z
      .string()
      .trim()
      .refine((v) => [...v].length <= META_DESCRIPTION_MAX, descriptionTooLong)
      .optional(),
    slug: z.string().trim().max(1000).optional(),
    focusKeyword: z.string().trim().max(FOCUS_KEYWORD_MAX).optional(),
    seoTitle: z
      .string()
      .trim()
      .refine((v) => [...v].length <= SEO_TITLE_MAX, seoTitleTooLong)
      .optional(),
  };
}
