import OpenAI from 'openai';
import { DEFAULT_TEXT_MODEL, MAX_TITLE_KEYWORDS, canUseModel, findModel, type SubscriptionStatus } from '~/catalogue';
import { env } from '~/runtime/env.server';
import { getLogger } from '~/runtime/logger.server';
import { providerKey } from './api-keys.server';
import { hit, maxFor, refund, type LimitState } from './rate-limit.server';

// POST /api/generate-blog-title: one title per keyword, in ONE provider call for up to
// MAX_TITLE_KEYWORDS keywords, matched to the keywords by position. Titles cost no credits, so
// each user has an abuse limit (Postgres, like the login limits).

export type TitleOptions = {
  model?: string;
  language?: string;
  toneOfVoice?: string;
  articleType?: string;
  readingLevel?: string;
  pointOfView?: string;
  writingStyle?: string;
};

export type TitleResult =
  | { ok: true; titles: string[] }
  | { ok: false; reason: 'limited'; state: LimitState }
  | { ok: false; reason: 'notConfigured' | 'provider' | 'malformed' };

// The one place that talks to the rate-limit module (its signature is being reworked elsewhere).
async function takeTitleQuota(userId: string): Promise<LimitState> {
  return hit('titleUser', `title:${userId}`);
}
async function giveBackTitleQuota(userId: string): Promise<void> {
  await refund('titleUser', `title:${userId}`);
}
export const titleLimit = () => maxFor('titleUser');

/** The model titles are written with: the form's model when the user may use it, else the default. */
function providerModelFor(modelId: string | undefined, status: SubscriptionStatus): string {
  const model = findModel(modelId);
  const chosen = model && model.kind === 'text' && canUseModel(status, model) ? model : findModel(DEFAULT_TEXT_MODEL)!;
  return chosen.providerModel;
}

function promptFor(keywords: string[], options: TitleOptions): string {
  const details = [
    options.language && `Language: ${options.language}`,
    options.toneOfVoice && `Tone of voice: ${options.toneOfVoice}`,
    options.articleType && `Article type: ${options.articleType}`,
    options.readingLevel && `Reading level: ${options.readingLevel}`,
    options.pointOfView && `Point of view: ${options.pointOfView}`,
    options.writingStyle && `Writing style: ${options.writingStyle}`,
  ].filter(Boolean);
  return [
    `Write one engaging, SEO-friendly blog post title for each of the ${keywords.length} keywords below.`,
    ...details,
    'Answer with JSON only, exactly in this form: {"titles": ["title for keyword 1", "title for keyword 2", ...]}',
    `The array must have exactly ${keywords.length} strings, in the same order as the keywords. No numbering, no quotes around titles, no other text.`,
    '',
    'Keywords:',
    ...keywords.map((k, i) => `${i + 1}. ${k}`),
  ].join('\n');
}

/** Longest title kept: a longer one is cut at a word boundary (junk answers). */
export const TITLE_MAX_LENGTH = 150;
/** A "title" longer than this is prose (an article, a paragraph), not a title: the answer is refused. */
const TITLE_PROSE_LENGTH = 300;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * A model's text without markup: block ends become line breaks, tags go, entities are decoded and
 * whatever markup the decoding revealed goes too, so no HTML ever reaches a form field.
 */
export function stripMarkup(text: string): string {
  const once = (value: string) =>
    value
      .replace(/<\s*(script|style)[^>]*>[\s\S]*?<\s*\/\s*\1\s*>/gi, ' ')
      .replace(/<\s*br\s*\/?\s*>|<\s*\/\s*(p|li|h[1-6]|div|tr)\s*>/gi, '\n')
      .replace(/<!--[\s\S]*?-->|<\/?[a-z!][^>]*>/gi, ' ');
  const decoded = once(text).replace(/&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/gi, (whole, name: string) => {
    if (ENTITIES[name.toLowerCase()] !== undefined) return ENTITIES[name.toLowerCase()]!;
    const code =
      name.startsWith('#x') || name.startsWith('#X') ? parseInt(name.slice(2), 16) : name.startsWith('#') ? Number(name.slice(1)) : NaN;
    return Number.isFinite(code) && code > 31 && code < 0x110000 ? String.fromCodePoint(code) : whole;
  });
  return once(decoded).replace(/[<>]/g, ' ');
}

/** Cuts a title to TITLE_MAX_LENGTH characters at the last word boundary (an ellipsis marks the cut). */
function capTitle(title: string): string {
  const chars = [...title];
  if (chars.length <= TITLE_MAX_LENGTH) return title;
  const cut = chars.slice(0, TITLE_MAX_LENGTH - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const cleanTitle = (t: string) =>
  stripMarkup(t)
    .replace(/^\s*(?:[-*•]|\d+[.)]|#+)\s*/, '')
    .replace(/^\s*(?:title\s*\d*\s*:)\s*/i, '')
    .replace(/\*\*|__|`/g, '')
    .trim()
    .replace(/^["'“”‘’«]+|["'“”‘’»]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();

function fromJson(value: unknown): string[] | null {
  if (Array.isArray(value)) {
    const titles = value.map((v) =>
      typeof v === 'string'
        ? v
        : v && typeof v === 'object' && typeof (v as { title?: unknown }).title === 'string'
          ? (v as { title: string }).title
          : null,
    );
    return titles.every((t): t is string => t !== null) ? titles : null;
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.titles)) return fromJson(o.titles);
    if (typeof o.title === 'string') return [o.title];
  }
  return null;
}

/** Exactly `count` titles, each non-empty and short enough to be a title (capped), or null. */
function oneTitlePerKeyword(titles: string[], count: number): string[] | null {
  const cleaned = titles.map(cleanTitle);
  if (cleaned.length !== count) return null;
  if (!cleaned.every((t) => t && [...t].length <= TITLE_PROSE_LENGTH)) return null;
  return cleaned.map(capTitle);
}

/**
 * The titles in a model's answer: JSON (bare, fenced, or inside prose), else one per line
 * (numbered or bulleted), markup stripped. Null unless it is exactly one title per keyword, each
 * short enough to be a title: an article, an HTML page or a list of the wrong length is refused.
 */
export function parseTitles(answer: string, count: number): string[] | null {
  const text = answer.replace(/```(?:json)?/gi, '').trim();
  const candidates: string[] = [text];
  const object = text.match(/\{[\s\S]*\}/);
  if (object) candidates.push(object[0]);
  const array = text.match(/\[[\s\S]*\]/);
  if (array) candidates.push(array[0]);
  for (const candidate of candidates) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue; // not JSON: try the next reading
    }
    const titles = fromJson(parsed);
    // JSON that names its titles is the answer: the wrong number of them is refused, not re-read.
    if (titles) return oneTitlePerKeyword(titles, count);
  }
  const lines = stripMarkup(text)
    .split(/\r?\n/)
    .map(cleanTitle)
    .filter((l) => l && !/^[[\]{}]$/.test(l) && !/^(here (are|is)|sure\b|keywords?:|titles?:)/i.test(l));
  return oneTitlePerKeyword(lines, count);
}

export async function generateTitles(
  user: { id: string; subscriptionStatus: SubscriptionStatus },
  keywords: string[],
  options: TitleOptions = {},
): Promise<TitleResult> {
  const list = keywords.slice(0, MAX_TITLE_KEYWORDS);
  const state = await takeTitleQuota(user.id);
  if (state.limited) return { ok: false, reason: 'limited', state };
  const apiKey = await providerKey(user.id, 'openrouter');
  if (!apiKey) {
    await giveBackTitleQuota(user.id);
    return { ok: false, reason: 'notConfigured' };
  }
  const client = new OpenAI({ apiKey, baseURL: env.OPENROUTER_BASE_URL, maxRetries: 1, timeout: 60_000 });
  let answer: string;
  try {
    const completion = await client.chat.completions.create({
      model: providerModelFor(options.model, user.subscriptionStatus),
      temperature: 0.7,
      max_tokens: Math.min(4000, 60 + list.length * 60),
      messages: [
        { role: 'system', content: 'You write blog post titles. You answer with JSON only.' },
        { role: 'user', content: promptFor(list, options) },
      ],
    });
    answer = completion.choices?.[0]?.message?.content ?? '';
  } catch (error) {
    getLogger().warn({ err: error instanceof Error ? error.message : String(error), userId: user.id }, 'title generation: provider error');
    await giveBackTitleQuota(user.id);
    return { ok: false, reason: 'provider' };
  }
  const titles = parseTitles(answer, list.length);
  if (!titles) {
    getLogger().warn({ userId: user.id, answerLength: answer.length }, 'title generation: unreadable answer');
    return { ok: false, reason: 'malformed' };
  }
  return { ok: true, titles };
}
