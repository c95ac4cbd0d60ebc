// FAQ structured data for a post: the questions and answers of its FAQ section, as schema.org FAQPage
// JSON-LD the way Google's rich results read it (each Question with a name and an acceptedAnswer
// with text). Pure: HTML in, the questions or the script out.

import { decodeEntities } from './html-entities';

export type FaqEntry = { question: string; answer: string };

/** Headings that open a FAQ section (English and Chinese, as the models write them). */
const FAQ_HEADING =
  /(^|[^a-z])(faqs?|frequently asked questions|questions and answers|q\s*&\s*a)([^a-z]|$)|常見問題|常见问题|問與答|问与答|問答/i;

const HEADING = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;

function textOf(html: string): string {
  return decodeEntities(
    html
      .replace(/<(br|\/p|\/li|\/h[1-6]|\/blockquote|\/tr)\b[^>]*>/gi, ' ')
      .replace(/<script[\s\S]*?<\/script\s*>/gi, '')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The FAQ section's questions and answers: under the first heading that names a FAQ, each deeper
 * heading is a question and the text up to the next heading its answer; the section ends at the next
 * heading as high as its own. A question without answer text is left out.
 */
export function faqEntries(html: string): FaqEntry[] {
  const headings = [...html.matchAll(HEADING)].map((m) => ({
    level: Number(m[1]),
    text: textOf(m[2]!),
    start: m.index!,
    end: m.index! + m[0].length,
  }));
  const open = headings.findIndex((h) => FAQ_HEADING.test(h.text));
  if (open < 0) return [];
  const section = headings[open]!;
  const entries: FaqEntry[] = [];
  for (let i = open + 1; i < headings.length; i++) {
    const h = headings[i]!;
    if (h.level <= section.level) break;
    const next = headings[i + 1];
    const answer = textOf(html.slice(h.end, next ? next.start : html.length));
    if (h.text && answer) entries.push({ question: h.text, answer });
  }
  return entries;
}

/** The FAQPage object for these entries (at least one), as schema.org describes it. */
export function faqPageJsonLd(entries: FaqEntry[]): Record<string, unknown> {
  return {
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    mainEntity: entries.map((e) => ({
      '@type': 'Question',
      name: e.question,
      acceptedAnswer: { '@type': 'Answer', text: e.answer },
    })),
  };
}

/**
 * The FAQ's JSON-LD as a script element, or null when the HTML has no FAQ with an answered question.
 * `<`, `>` and `&` are escaped inside the JSON so nothing in it can close the script.
 */
export function faqScript(html: string): string | null {
  const entries = faqEntries(html);
  if (entries.length === 0) return null;
  const json = JSON.stringify(faqPageJsonLd(entries)).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `<script type="application/ld+json">${json}</script>`;
}
