import { slugify } from '~/utils/seo-fields';
import { normalised, type ArticleParts } from './article';
import type { QualityCheck } from './check';

// Where the post's keyword appears: the title, the first paragraph, at least one subheading, the
// meta description and the slug. The keyword is the focus keyword, else the row's first CSV
// keyword, else the topic when it reads as one (at most KEYWORD_TOPIC_WORDS words). Matching folds
// case and punctuation; the slug is matched against the keyword's own slug. All five pass, three or
// four warn (the post still ranks on the rest), fewer fail.

export const KEYWORD_TOPIC_WORDS = 6;

export type KeywordPlace = 'title' | 'firstParagraph' | 'subheading' | 'metaDescription' | 'slug';

/** The keyword a post is checked for, or null when it has none. */
export function keywordOf(input: { focusKeyword?: string | null; keywords?: string | null; topic: string }): string | null {
  const focus = input.focusKeyword?.trim();
  if (focus) return focus;
  const first = input.keywords?.split(/[,;\n]/)[0]?.trim();
  if (first) return first;
  const topic = input.topic.trim();
  return topic && normalised(topic).split(' ').length <= KEYWORD_TOPIC_WORDS ? topic : null;
}

const contains = (haystack: string, needle: string) => ` ${normalised(haystack)} `.includes(` ${needle} `);

export function keywordCheck(
  keyword: string | null,
  post: { title: string; parts: ArticleParts; metaDescription: string; slug: string },
): QualityCheck {
  if (!keyword) return { id: 'keyword', status: 'not_measured', params: { keyword: null, found: [], missing: [] } };
  const needle = normalised(keyword);
  const keySlug = slugify(keyword);
  const places: Record<KeywordPlace, boolean> = {
    title: contains(post.title, needle),
    firstParagraph: contains(post.parts.paragraphs[0]?.text ?? '', needle),
    subheading: post.parts.headings.some((h) => contains(h.text, needle)),
    metaDescription: contains(post.metaDescription, needle),
    slug: keySlug !== '' && `-${post.slug}-`.includes(`-${keySlug}-`),
  };
  const found = (Object.keys(places) as KeywordPlace[]).filter((k) => places[k]);
  const missing = (Object.keys(places) as KeywordPlace[]).filter((k) => !places[k]);
  const status = found.length === 5 ? 'pass' : found.length >= 3 ? 'warn' : 'fail';
  return { id: 'keyword', status, params: { keyword, found, missing } };
}
