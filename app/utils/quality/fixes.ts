import type { FixKind } from '~/catalogue';
import type { FailureParams } from '~/utils/generation-errors';
import { textOf } from './article';
import type { QualityCheck } from './check';
import { LENGTH_PASS_RATIO } from './length-check';
import { CONCLUSION, FAQ, TAKEAWAYS } from './sections-check';

// The one-click fixes a quality report offers, and where a fix's new words go in the post. Pure:
// the results row shows the offers (with their cost), the fix service refuses what is not offered
// and places what the provider wrote.

/** The requested sections a fix can add on its own (headings and lists are the whole post's shape). */
export const ADDABLE_SECTIONS = ['intro', 'keyTakeaways', 'faq', 'conclusion'] as const;
export type AddableSection = (typeof ADDABLE_SECTIONS)[number];

export type FixOffer = { kind: FixKind; section?: AddableSection };

type Report = { checks: QualityCheck[] } | null | undefined;

/**
 * What can be fixed: expand when the post is shorter than its length check passes at, add each
 * requested section it lacks; regenerate is offered on every completed text post.
 */
export function fixesOffered(report: Report): FixOffer[] {
  const offers: FixOffer[] = [];
  const length = report?.checks.find((c) => c.id === 'length');
  if (length && Number(length.params.ratio) < LENGTH_PASS_RATIO) offers.push({ kind: 'expand' });
  const missing = report?.checks.find((c) => c.id === 'sections')?.params.missing;
  const list = Array.isArray(missing) ? missing : [];
  for (const section of ADDABLE_SECTIONS) if (list.includes(section)) offers.push({ kind: 'add_section', section });
  offers.push({ kind: 'regenerate' });
  return offers;
}

export function isOffered(report: Report, kind: FixKind, section?: string | null): boolean {
  return fixesOffered(report).some((o) => o.kind === kind && (kind !== 'add_section' || o.section === section));
}

/** How many more words (or characters, for Chinese and Japanese) the length check wants. */
export function lengthShortfall(report: Report): { missing: number; unit: 'words' | 'characters' } | null {
  const length = report?.checks.find((c) => c.id === 'length');
  if (!length) return null;
  const target = Number(length.params.target);
  const measured = Number(length.params.measured);
  if (!Number.isFinite(target) || !Number.isFinite(measured)) return null;
  return { missing: Math.max(0, target - measured), unit: length.params.unit === 'characters' ? 'characters' : 'words' };
}

const ENTITY: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': ' ' };

/**
 * Our stored HTML as Markdown-like text for a prompt: headings with their #s, list items with a
 * dash, paragraphs apart; images and link targets left out (the model continues the words).
 */
export function articleMarkdown(html: string): string {
  return html
    .replace(/<figure\b[\s\S]*?<\/figure>/gi, '')
    .replace(
      /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi,
      (_, level: string, inner: string) => `\n\n${'#'.repeat(Number(level))} ${textOf(inner)}\n\n`,
    )
    .replace(/<li\b[^>]*>([\s\S]*?)<\/li>/gi, (_, inner: string) => `\n- ${textOf(inner)}`)
    .replace(/<p\b[^>]*>([\s\S]*?)<\/p>/gi, (_, inner: string) => `\n\n${textOf(inner)}\n\n`)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (e) => ENTITY[e]!)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

type Heading = { at: number; level: number; text: string };

function headingsOf(html: string): Heading[] {
  return [...html.matchAll(/<h([2-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi)].map((m) => ({
    at: m.index!,
    level: Number(m[1]),
    text: textOf(m[2]!),
  }));
}

const CLOSING = [TAKEAWAYS, FAQ, CONCLUSION];
const isClosing = (h: Heading) => CLOSING.some((re) => re.test(h.text));

/** Where the post's closing sections (key takeaways, FAQ, conclusion at its end) begin; its length when none. */
function closingStart(html: string): number {
  const top = headingsOf(html).filter((h) => h.level === 2);
  let at = html.length;
  for (let i = top.length - 1; i >= 0 && isClosing(top[i]!); i--) at = top[i]!.at;
  return at;
}

const firstHeadingOf = (html: string, re: RegExp) => headingsOf(html).find((h) => h.level === 2 && re.test(h.text))?.at;

/** The post with `more` (its continuation, new body sections) placed before its closing sections. */
export function insertContinuation(html: string, more: string): string {
  const at = closingStart(html);
  return html.slice(0, at) + more + html.slice(at);
}

/**
 * The post with a section added where posts have it: the introduction before the first heading
 * (after a leading image), key takeaways before the FAQ or conclusion, the FAQ before the
 * conclusion, the conclusion last.
 */
export function insertSection(html: string, section: AddableSection, sectionHtml: string): string {
  let at: number;
  if (section === 'intro') {
    const first = headingsOf(html)[0]?.at;
    const figure = /^\s*<figure\b[\s\S]*?<\/figure>/i.exec(html);
    at = first ?? (figure ? figure[0].length : 0);
    if (figure && at < figure[0].length) at = figure[0].length;
  } else if (section === 'conclusion') {
    at = html.length;
  } else if (section === 'faq') {
    at = firstHeadingOf(html, CONCLUSION) ?? html.length;
  } else {
    at = firstHeadingOf(html, FAQ) ?? firstHeadingOf(html, CONCLUSION) ?? html.length;
  }
  return html.slice(0, at) + sectionHtml + html.slice(at);
}

/** The regular expression a section's heading is recognised by (none for the introduction). */
export function sectionHeadingPattern(section: AddableSection): RegExp | null {
  return section === 'faq' ? FAQ : section === 'keyTakeaways' ? TAKEAWAYS : section === 'conclusion' ? CONCLUSION : null;
}

/** Headings the sections check recognises, for a model's heading it would not: in the post's script where we know them. */
const FALLBACK_HEADINGS: [RegExp, Record<Exclude<AddableSection, 'intro'>, string>][] = [
  [/^Chinese \(Traditional\)/, { keyTakeaways: '重點', faq: '常見問題', conclusion: '結論' }],
  [/^Chinese/, { keyTakeaways: '要点', faq: '常见问题', conclusion: '结论' }],
  [/^Japanese/, { keyTakeaways: 'ポイント', faq: 'よくある質問', conclusion: 'まとめ' }],
  [/./, { keyTakeaways: 'Key takeaways', faq: 'FAQ', conclusion: 'Conclusion' }],
];

export function fallbackHeading(section: Exclude<AddableSection, 'intro'>, language: string): string {
  return FALLBACK_HEADINGS.find(([re]) => re.test(language))![1][section];
}

/** A result's latest fix, as the results list and the API show it. */
export type ResultFixView = {
  id: string;
  kind: FixKind;
  section: AddableSection | null;
  status: 'processing' | 'completed' | 'failed';
  /** What it holds while it runs, and what it cost once completed (a failed fix costs nothing). */
  credits: number;
  /** Why it failed: a generation failure code, or `result_changed` (the post was edited meanwhile). */
  errorCode: string | null;
  errorParams: FailureParams | null;
  createdAt: string;
  finishedAt: string | null;
};
