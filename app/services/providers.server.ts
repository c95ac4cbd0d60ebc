import OpenAI from 'openai';
import Replicate from 'replicate';
import { marked } from 'marked';
import sanitizeHtml from 'sanitize-html';
import { DEFAULT_TEXT_MODEL, findModel, wordsByLength, type StructureFlag } from '~/catalogue';
import type { TopicBrief } from '~/utils/csv-file';
import type { ImageSettingValues, TextSettingValues } from '~/utils/input-settings';
import { SEO_PROMPT } from '~/utils/seo-fields';
import { env } from '~/runtime/env.server';
import { nodeFetch } from '~/runtime/node-fetch.server';
import { singleton } from '~/runtime/singleton.server';
import type { FailureParams, GenerationFailure } from '~/utils/generation-errors';

// The AI providers: text through any OpenAI-compatible chat API (OpenRouter by default), images
// through Replicate's predictions API. Transient failures (429, 5xx, timeouts, connection errors)
// are retried here with exponential backoff that honours Retry-After; what is left is a
// ProviderError: its code (and parameters) is what the result shows, translated; its message is
// for operators.

export class ProviderError extends Error {
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** The provider's own words about the failure, shown quoted after our sentence. */
  readonly detail?: string;

  constructor(
    readonly code: GenerationFailure,
    message: string,
    readonly retryable: boolean,
    extra: { status?: number; retryAfterMs?: number; detail?: string } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    this.status = extra.status;
    this.retryAfterMs = extra.retryAfterMs;
    this.detail = extra.detail;
  }

  /** What the failure's sentence names: the HTTP status and the provider's words, when there are any. */
  get params(): FailureParams | undefined {
    const params: FailureParams = {};
    if (this.status !== undefined) params.status = this.status;
    if (this.detail) params.detail = this.detail;
    return Object.keys(params).length ? params : undefined;
  }
}

export type RetryPolicy = { attempts: number; baseMs: number; maxMs: number };

export function retryPolicy(): RetryPolicy {
  return { attempts: env.GENERATION_PROVIDER_ATTEMPTS, baseMs: 1000, maxMs: 60_000 };
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs fn, retrying retryable ProviderErrors with backoff (Retry-After wins when given). */
export async function withRetries<T>(fn: () => Promise<T>, policy: RetryPolicy = retryPolicy(), onWait?: () => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const e = toProviderError(err);
      if (!e.retryable || attempt >= policy.attempts) throw e;
      const backoff = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
      onWait?.();
      await sleep(Math.min(policy.maxMs, e.retryAfterMs ?? backoff));
    }
  }
}

function headerOf(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const v = (headers as Record<string, string | undefined>)[name] ?? (headers as Record<string, string | undefined>)[name.toLowerCase()];
  return v ?? null;
}

const timedOut = () => new ProviderError('provider_timeout', 'The AI provider timed out.', true);
const unreachable = () => new ProviderError('provider_unreachable', 'Could not reach the AI provider.', true);
const malformed = () => new ProviderError('provider_malformed', 'The AI provider returned an empty or malformed answer.', true);

/** Maps the clients' errors (openai APIError, replicate ApiError, fetch failures) to ProviderError. */
export function toProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return timedOut();
  if (err instanceof OpenAI.APIConnectionError) return unreachable();
  if (err instanceof OpenAI.APIError) {
    if (err.status === undefined) return new ProviderError('provider_error', providerMessage(err.message), true);
    const said = (err.error as { message?: unknown } | undefined)?.message;
    return statusError(err.status, typeof said === 'string' ? said : undefined, err.message, headerOf(err.headers, 'retry-after'));
  }
  const replicateError = err as { name?: string; response?: Response; message?: string };
  if (replicateError?.name === 'ApiError' && replicateError.response) {
    const { status, headers } = replicateError.response;
    return statusError(status, replicateDetail(replicateError.message), replicateError.message ?? '', headers.get('retry-after'));
  }
  const e = err as { name?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'SyntaxError') return malformed();
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return timedOut();
  if (e?.name === 'TypeError' && /fetch failed/i.test(e.message ?? '')) return unreachable();
  // Something the clients threw that we do not know: its text is ours to log, not the user's to read.
  return new ProviderError('provider_error', e?.message ? String(e.message).slice(0, 500) : 'Unknown error occurred', false);
}

/** An error answer of the provider: a code by its status, and what the provider said, if it said anything. */
function statusError(status: number, said: string | undefined, raw: string, retryAfter: string | null): ProviderError {
  const detail = said ? providerWords(said) : undefined;
  return new ProviderError(statusFailure(status), providerMessage(detail ?? raw, status), isRetryableStatus(status), {
    status,
    retryAfterMs: parseRetryAfter(retryAfter),
    detail: detail || undefined,
  });
}

/** The failure code of an HTTP status from a provider. */
function statusFailure(status: number): GenerationFailure {
  if (status === 401 || status === 403) return 'provider_auth';
  if (status === 429) return 'provider_rate_limited';
  if (status >= 500) return 'provider_unavailable';
  return 'provider_refused';
}

function isRetryableStatus(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A provider's words on one line, short enough to show. */
function providerWords(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}

function providerMessage(message: string, status?: number): string {
  const text = providerWords(String(message || ''));
  return status && !text.startsWith(String(status)) ? `${status}: ${text || 'Provider error'}` : text || 'Provider error';
}

/**
 * What Replicate said in its problem body ("Request to ... failed with status 422 Unprocessable
 * Entity: {"detail":"..."}."), or nothing: the rest of the client's message names the request's URL.
 */
function replicateDetail(message: string | undefined): string | undefined {
  const m = message?.match(/failed with status \d+[^:]*: (.*)\.?$/s);
  if (!m) return undefined;
  try {
    const body = JSON.parse(m[1]!.replace(/\.$/, '')) as { detail?: unknown; title?: unknown };
    const said = body.detail ?? body.title;
    return typeof said === 'string' ? said : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Clients (one per key: a user's own key wins over the operator's)

function openaiClient(apiKey: string): OpenAI {
  const cache = singleton('generation:openai-clients', () => new Map<string, OpenAI>());
  const id = `${env.OPENROUTER_BASE_URL}|${apiKey}`;
  let client = cache.get(id);
  if (!client) {
    client = new OpenAI({
      apiKey,
      baseURL: env.OPENROUTER_BASE_URL,
      maxRetries: 0, // withRetries does it, honouring Retry-After
      timeout: env.GENERATION_PROVIDER_TIMEOUT_SECONDS * 1000,
      defaultHeaders: { 'HTTP-Referer': env.APP_URL, 'X-Title': 'Postforge' },
      // A call per generated item: node:http costs half the CPU of the global fetch (node-fetch.server.ts).
      fetch: nodeFetch,
    });
    if (cache.size > 1000) cache.clear();
    cache.set(id, client);
  }
  return client;
}

function replicateClient(apiKey: string): Replicate {
  return new Replicate({ auth: apiKey, baseUrl: env.REPLICATE_BASE_URL, useFileOutput: false });
}

// ---------------------------------------------------------------------------------------------
// Text

export type TextSettings = TextSettingValues & { temperature: number; maxTokens: number; includeSourceCitations?: boolean };

const structureWords: Record<StructureFlag, string> = {
  includeIntro: 'an engaging introduction',
  includeOutro: 'a conclusion',
  includeHeadings: 'clear H2/H3 headings for each section',
  includeBulletPoints: 'bullet-point lists where they help',
  includeQA: 'a short FAQ section (questions as headings with answers)',
  includeKeyTakeaways: 'a "Key takeaways" section',
};

/** The chat messages for one article, built from every setting of the form and the topic's own CSV columns. */
export function buildTextPrompt(topic: string, s: TextSettings, brief: TopicBrief | null = null): { system: string; user: string } {
  const wanted = (Object.keys(structureWords) as StructureFlag[]).filter((k) => s[k]).map((k) => structureWords[k]);
  const unwanted = (Object.keys(structureWords) as StructureFlag[]).filter((k) => !s[k]).map((k) => structureWords[k]);
  const words = wordsByLength[s.contentLength] ?? 1200;
  const system = [
    'You are an expert blog writer. Answer with the article only, in Markdown.',
    'The first line is the title as a level-1 heading ("# Title"). Do not use HTML.',
    SEO_PROMPT,
  ].join(' ');
  const user = [
    `Write a ${s.articleType.toLowerCase()} blog post about: ${topic}`,
    `Language: ${s.language}.`,
    `Tone of voice: ${s.toneOfVoice}. Point of view: ${s.pointOfView}. Writing style: ${s.writingStyle}.`,
    `Reading level: ${s.readingLevel}. Length: about ${words} words.`,
    wanted.length ? `Include: ${wanted.join('; ')}.` : '',
    unwanted.length ? `Do not include: ${unwanted.join('; ')}.` : '',
    s.includeSourceCitations ? 'Cite your sources with links at the end.' : '',
    brief?.title ? `Title: use exactly this title: ${brief.title}` : '',
    brief?.keywords ? `Keywords to work in naturally: ${brief.keywords}` : '',
    brief?.instructions ? `Additional instructions for this post: ${brief.instructions}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { system, user };
}

const allowedTags = [
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'br',
  'hr',
  'blockquote',
  'pre',
  'code',
  'em',
  'strong',
  'del',
  's',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'figure',
  'figcaption',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'sup',
  'sub',
  'span',
  'div',
];

/** Our own image route: the only images an article keeps (no broken `src=x`, no tracking pixels). */
const OWN_IMAGE = /^\/images\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Links kept: absolute http(s) only (a relative `/api/logout` would act on our own site). */
const ABSOLUTE_LINK = /^https?:\/\/[^/\s]/i;

/** The allow-list sanitizer for every HTML we store (provider output and user edits). */
export function sanitizeArticle(html: string): string {
  return sanitizeHtml(html, {
    allowedTags,
    allowedAttributes: {
      a: ['href', 'title', 'rel', 'target'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      th: ['align', 'colspan', 'rowspan'],
      td: ['align', 'colspan', 'rowspan'],
      code: ['class'],
    },
    allowedSchemes: ['http', 'https'],
    allowedSchemesByTag: {},
    allowProtocolRelative: false,
    allowedClasses: { code: [/^language-[\w-]+$/] },
    // Any other link keeps its text in an <a> without href (inert, not a link).
    transformTags: {
      a: (tagName, attribs) =>
        ABSOLUTE_LINK.test(attribs.href?.trim() ?? '')
          ? { tagName, attribs: { ...attribs, href: attribs.href!.trim(), rel: 'noopener noreferrer nofollow' } }
          : { tagName, attribs: {} },
    },
    exclusiveFilter: (frame) => frame.tag === 'img' && !OWN_IMAGE.test(frame.attribs.src ?? ''),
    disallowedTagsMode: 'discard',
  });
}

/**
 * A title or excerpt as plain text on one line (markup dropped, entities decoded): what a provider
 * or a form sends is text, never HTML for WordPress or our pages to render.
 */
export function plainText(html: string): string {
  return htmlToText(html).replace(/\s+/g, ' ').trim();
}

/** Plain text of stored HTML (downloads, search), blocks on their own lines. */
export function htmlToText(html: string): string {
  // Without a tag or an entity there is nothing to parse: the parser would hand the text back as
  // it came (titles mostly, several per generated post).
  if (!/[<&]/.test(html)) return textOfMarkup(html);
  return textOfMarkup(sanitizeHtml(blockLines(html), { allowedTags: [], allowedAttributes: {} }));
}

/**
 * htmlToText of what sanitizeArticle just returned, without parsing it again: its tags are well
 * formed and its text and attribute values escaped (no `<` or `>` but the tags'), so dropping the
 * tags leaves what the parse would. A generated post's text (search, counts, quality checks).
 */
export function sanitizedHtmlToText(html: string): string {
  return textOfMarkup(blockLines(html).replace(/<[^>]*>/g, ''));
}

const blockLines = (html: string) => html.replace(/<\/(p|h[1-6]|li|blockquote|pre|tr|figure|div)>/gi, '$&\n').replace(/<br\s*\/?>/gi, '\n');

/** Text with its tags gone and its characters still escaped: the escapes decoded, blank runs cut. */
function textOfMarkup(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export type Article = { title: string; html: string; markdown: string };

const sameText = (a: string, b: string) =>
  a.toLocaleLowerCase().replace(/\s+/g, ' ').trim() === b.toLocaleLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Markdown from the provider → title (its first H1) and sanitized HTML of the rest. The post's
 * title is its page's only h1: a leading <h1> the Markdown title rule missed (HTML, setext) is the
 * title when there is none and dropped when it repeats it; any other h1 becomes an h2.
 */
export function markdownToArticle(markdown: string, fallbackTitle: string): Article {
  let md = markdown.replace(/^\uFEFF/, '').trim();
  // Some models wrap the whole answer in a ```markdown fence.
  const fenced = md.match(/^```(?:markdown|md)?\s*\n([\s\S]*?)\n```\s*$/i);
  if (fenced) md = fenced[1]!.trim();
  let title = '';
  const h1 = md.match(/^#\s+(.+?)\s*#*\s*$/m);
  if (h1 && md.indexOf(h1[0]) === 0) {
    title = h1[1]!;
    md = md.slice(h1[0].length).trim();
  }
  let html = sanitizeArticle(marked.parse(md, { async: false, gfm: true }) as string);
  const lead = html.match(/^\s*<h1>([\s\S]*?)<\/h1>\s*/);
  if (lead) {
    const heading = plainText(lead[1]!);
    if (!title) title = heading;
    if (sameText(heading, plainText(marked.parseInline(title, { async: false }) as string))) html = html.slice(lead[0].length);
  }
  html = html.replace(/<(\/?)h1>/g, '<$1h2>');
  const plainTitle = plainText(marked.parseInline(title || fallbackTitle, { async: false }) as string);
  return { title: plainTitle.slice(0, 300) || plainText(fallbackTitle).slice(0, 300), html, markdown: md };
}

/**
 * One article from the text provider (retried on transient failures): its Markdown as answered;
 * markdownToArticle converts it (the worker does that after refilling the slot).
 */
export async function requestArticle(
  apiKey: string,
  topic: string,
  settings: TextSettings,
  brief: TopicBrief | null = null,
): Promise<{ text: string; usage?: unknown }> {
  const model = findModel(settings.model);
  const { system, user } = buildTextPrompt(topic, settings, brief);
  const client = openaiClient(apiKey);
  return withRetries(async () => {
    const res = await client.chat.completions.create({
      model: model?.providerModel ?? settings.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      temperature: settings.temperature,
      max_tokens: settings.maxTokens,
    });
    const text = res?.choices?.[0]?.message?.content;
    if (typeof text !== 'string' || text.trim() === '') throw malformed();
    return { text, usage: res.usage };
  }, retryPolicy());
}

/**
 * One chat answer from the text provider with the given messages (retried on transient failures):
 * the plan-first steps (a plan, a section) build their own prompts and call it.
 * `check` turns the text into what the caller needs; null means the answer is unusable, retried
 * like a malformed one.
 */
export async function requestChat<T = string>(
  apiKey: string,
  modelId: string,
  messages: { system: string; user: string },
  opts: { temperature: number; maxTokens: number; check?: (text: string) => T | null },
): Promise<{ value: T; usage?: unknown }> {
  const model = findModel(modelId);
  const client = openaiClient(apiKey);
  return withRetries(async () => {
    const res = await client.chat.completions.create({
      model: model?.providerModel ?? modelId,
      messages: [
        { role: 'system', content: messages.system },
        { role: 'user', content: messages.user },
      ],
      temperature: opts.temperature,
      max_tokens: opts.maxTokens,
    });
    const text = res?.choices?.[0]?.message?.content;
    if (typeof text !== 'string' || text.trim() === '') throw malformed();
    const value = opts.check ? opts.check(text) : (text as T);
    if (value === null) throw malformed();
    return { value, usage: res.usage };
  }, retryPolicy());
}

/** An image prompt with the topic's own CSV columns: its keywords and instructions (the title names the result only). */
export function buildImagePrompt(prompt: string, brief: TopicBrief | null = null): string {
  return [prompt, brief?.keywords ? `keywords: ${brief.keywords}` : '', brief?.instructions ?? ''].filter(Boolean).join('. ');
}

/** Is this prompt likely not English? (Any letter outside Latin-1 suggests another script.) */
export function looksNonEnglish(prompt: string): boolean {
  // eslint-disable-next-line no-control-regex -- the range starts at U+0000 on purpose (all of Latin)
  return /[^\u0000-\u024f\s\p{P}\p{S}\p{N}]/u.test(prompt);
}

/** A prompt translated to English with the default text model (free of charge to the user). */
export async function translateToEnglish(apiKey: string, prompt: string): Promise<string> {
  const client = openaiClient(apiKey);
  const model = findModel(DEFAULT_TEXT_MODEL)!;
  const out = await withRetries(async () => {
    const res = await client.chat.completions.create({
      model: model.providerModel,
      messages: [
        { role: 'system', content: 'Translate the user message into English for an image generator. Answer with the translation only.' },
        { role: 'user', content: prompt },
      ],
      temperature: 0,
      max_tokens: 300,
    });
    const text = res?.choices?.[0]?.message?.content?.trim();
    if (!text) throw malformed();
    return text;
  });
  return out.slice(0, 1000);
}

/** The marker a test provider (and a log reader) recognises a categories-and-tags request by. */
export const TERMS_REQUEST = 'Choose categories and tags for this blog post';

/**
 * The model's choice of categories and tags for one post, among the site's own names (the default
 * text model, free of charge to the user, as translation is). Names it invents are dropped by the
 * caller; here only the answer's shape is checked.
 */
export async function chooseTerms(
  apiKey: string,
  post: { title: string; text: string },
  site: { categories: string[]; tags: string[] },
): Promise<{ categories: string[]; tags: string[] }> {
  const client = openaiClient(apiKey);
  const model = findModel(DEFAULT_TEXT_MODEL)!;
  const system = [
    `${TERMS_REQUEST}. Use only names from the lists given; never invent new ones.`,
    'Pick 1 to 2 categories and up to 5 tags that fit the post; none when nothing fits.',
    'Answer with JSON only: {"categories": ["..."], "tags": ["..."]}.',
  ].join(' ');
  const user = [
    `Categories: ${JSON.stringify(site.categories)}`,
    `Tags: ${JSON.stringify(site.tags)}`,
    `Title: ${post.title}`,
    `Post: ${post.text.slice(0, 4000)}`,
  ].join('\n');
  return withRetries(async () => {
    const res = await client.chat.completions.create({
      model: model.providerModel,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      temperature: 0,
      max_tokens: 300,
    });
    const text = res?.choices?.[0]?.message?.content ?? '';
    const json = /\{[\s\S]*\}/.exec(text)?.[0];
    if (!json) throw malformed();
    const answer = JSON.parse(json) as { categories?: unknown; tags?: unknown };
    const names = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    return { categories: names(answer.categories), tags: names(answer.tags) };
  });
}

// ---------------------------------------------------------------------------------------------
// Images

export type ImageSettings = ImageSettingValues;
export type ImageBytes = { contentType: string; bytes: Buffer };

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Images from Replicate: one prediction (Prefer: wait, then polling), its output URLs downloaded. */
export async function generateImages(apiKey: string, prompt: string, s: ImageSettings, onWait?: () => void): Promise<ImageBytes[]> {
  const model = findModel(s.model);
  const replicate = replicateClient(apiKey);
  const input = {
    prompt: s.stylePreset ? `${prompt}, ${s.stylePreset.replace(/-/g, ' ')} style` : prompt,
    aspect_ratio: s.aspectRatio,
    num_outputs: s.numOutputs,
    guidance: s.guidanceScale,
    guidance_scale: s.guidanceScale,
    output_format: 'png',
  };
  const urls = await withRetries(
    async () => {
      let prediction = await replicate.predictions.create({
        model: model?.providerModel ?? s.model,
        input,
        wait: 60,
      });
      if (prediction.status !== 'succeeded' && prediction.status !== 'failed' && prediction.status !== 'canceled') {
        prediction = await replicate.wait(prediction, { interval: 500 });
      }
      if (prediction.status !== 'succeeded') {
        // Replicate's own words on why (a safety filter, a bad input), when it gave any.
        const said = typeof prediction.error === 'string' ? providerWords(prediction.error) : '';
        throw new ProviderError('image_failed', said || 'The image could not be generated.', false, { detail: said || undefined });
      }
      const output = prediction.output as unknown;
      const list = (Array.isArray(output) ? output : [output]).filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
      if (list.length === 0) throw new ProviderError('image_missing', 'The image provider returned no image.', false);
      return list;
    },
    retryPolicy(),
    onWait,
  );
  const images: ImageBytes[] = [];
  for (const url of urls.slice(0, Math.max(1, s.numOutputs))) {
    images.push(await withRetries(() => downloadImage(url), retryPolicy(), onWait));
  }
  return images;
}

async function downloadImage(url: string): Promise<ImageBytes> {
  const res = await fetch(url, { signal: AbortSignal.timeout(env.GENERATION_PROVIDER_TIMEOUT_SECONDS * 1000) });
  if (!res.ok) {
    const message = `${res.status}: the image could not be downloaded`;
    throw new ProviderError('image_download_failed', message, isRetryableStatus(res.status), { status: res.status });
  }
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!/^image\/(png|jpeg|webp|gif)$/.test(contentType))
    throw new ProviderError('image_not_image', 'The image provider returned something that is not an image.', false);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (bytes.length === 0 || bytes.length > MAX_IMAGE_BYTES)
    throw new ProviderError('image_too_large', 'The image is empty or too large.', false);
  return { contentType, bytes };
}
