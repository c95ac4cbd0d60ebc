// A stored article (our own sanitized HTML, so a light regex reading is enough) taken apart for the
// quality checks: its headings, paragraphs, lists and plain text, and the counting rules the
// checks share. Pure and cheap: it runs on every completed post.

export type ArticleParts = {
  /** h2..h6 in order, as plain text. */
  headings: { level: number; text: string }[];
  /** The text of each <p>, in order, with the index of the heading it follows (-1: before any). */
  paragraphs: { text: string; after: number }[];
  /** <ul> and <ol> elements. */
  lists: number;
  /** The whole visible text, blocks on their own lines. */
  text: string;
};

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/** The visible text of an HTML fragment (tags dropped, the common entities decoded). */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}

const BLOCK = /<(h[1-6]|p|ul|ol)\b[^>]*>([\s\S]*?)<\/\1>/gi;

export function articleParts(html: string): ArticleParts {
  const headings: ArticleParts['headings'] = [];
  const paragraphs: ArticleParts['paragraphs'] = [];
  let lists = 0;
  const lines: string[] = [];
  for (const m of html.matchAll(BLOCK)) {
    const tag = m[1]!.toLowerCase();
    if (tag === 'ul' || tag === 'ol') {
      lists++;
      for (const li of m[2]!.matchAll(/<li\b[^>]*>([\s\S]*?)<\/li>/gi)) lines.push(textOf(li[1]!));
      continue;
    }
    const text = textOf(m[2]!);
    lines.push(text);
    // The title is the result's own field; an <h1> in the body is not a section heading.
    if (tag === 'p') paragraphs.push({ text, after: headings.length - 1 });
    else if (tag !== 'h1') headings.push({ level: Number(tag[1]), text });
  }
  return { headings, paragraphs, lists, text: lines.join('\n') };
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

/** Chinese and Japanese are measured in characters: they do not separate words with spaces. */
export function countsInCharacters(language: string): boolean {
  return /^(Chinese|Japanese)/.test(language);
}

/** Words of a space-separated text (letters or digits between separators). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Han and kana characters of a text. */
export function cjkCharacters(text: string): number {
  return text.match(CJK)?.length ?? 0;
}

/**
 * The tokens the repetition and duplicate checks compare: words, and each Han or kana character
 * on its own (so a Chinese text has tokens too).
 */
export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Sentences of a text (split after . ! ? and their CJK forms), trimmed, empty ones dropped. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|(?<=[。！？])|\n+/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Lower case, punctuation and spacing folded: two texts that read the same compare equal. */
export function normalised(text: string): string {
  return tokens(text).join(' ');
}
