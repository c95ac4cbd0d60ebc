import crypto from 'node:crypto';
import type { Db } from '../../../db/client';
import { imageDefaults, wordsByLength } from '~/catalogue';
import type { CallGate } from '~/utils/call-gate';
import { planFromAnswer, wordsPerPart, type Plan, type PlanSection } from '~/utils/plan-schema';
import { researchBrief, sourcesMarkdown, type ResearchFinding, type ResearchSource } from '~/utils/research-sources';
import { seoWithFallbacks } from '~/utils/seo-fields';
import { countText } from '../results.server';
import {
  generateImages,
  sanitizedHtmlToText,
  markdownToArticle,
  ProviderError,
  requestChat,
  sanitizeArticle,
  type TextSettings,
} from '../providers.server';
import { storedSections, storeSection } from './sections.server';
import type { Output } from './output.server';
import type { ClaimedItem, ItemRow, KeyLookup } from './item.server';

// The provider's work of a plan-first item: the plan (one call, told what research found), then the
// post written from the approved plan one section at a time, several sections at once through the
// loop's call gate, each stored as it is answered, then joined in the plan's order (and the plan's
// sources listed at the end).

type Settings = TextSettings & { embedImage?: boolean };

const settingsOf = (row: ItemRow): Settings => ({ ...row.settings, model: row.model }) as unknown as Settings;

async function textKey(keyOf: KeyLookup, userId: string): Promise<string> {
  const key = await keyOf(userId, 'openrouter');
  if (!key) throw new ProviderError('no_text_key', 'No API key for the text provider.', false);
  return key;
}

const voice = (s: Settings) =>
  [
    `Language: ${s.language}.`,
    `Tone of voice: ${s.toneOfVoice}. Point of view: ${s.pointOfView}. Writing style: ${s.writingStyle}.`,
    `Reading level: ${s.readingLevel}.`,
  ].join('\n');

/** The messages that ask for a plan, with what research found (exported for the tests of its wording). */
export function planPrompt(topic: string, s: Settings, research: ResearchFinding[] = []): { system: string; user: string } {
  const words = wordsByLength[s.contentLength] ?? 1200;
  const parts = [
    s.includeIntro ? 'an introduction section first' : '',
    s.includeKeyTakeaways ? 'a "Key takeaways" section' : '',
    s.includeOutro ? 'a conclusion section last' : '',
  ].filter(Boolean);
  const system = [
    'You are an expert blog editor. Plan a blog post; do not write it.',
    'Answer with one JSON object only, no Markdown, in this shape:',
    '{"title": string, "metaDescription": string of at most 155 characters,',
    '"sections": [{"level": 2 or 3, "heading": string, "intent": one sentence on what the section covers}],',
    '"faq": [question strings]}.',
  ].join(' ');
  const user = [
    `Plan a ${String(s.articleType ?? 'blog').toLowerCase()} blog post about: ${topic}`,
    voice(s),
    `The post will be about ${words} words long: plan ${words >= 2000 ? '6 to 10' : '4 to 7'} sections (H2, with H3 under an H2 where it helps).`,
    parts.length ? `Include ${parts.join(', ')}.` : '',
    s.includeQA ? 'List 3 to 5 questions readers ask in "faq".' : 'Leave "faq" empty.',
    researchBrief(research),
  ]
    .filter(Boolean)
    .join('\n');
  return { system, user };
}

/** The plan of the item's topic, from the text provider (an unusable answer is retried, then fails). */
export async function runPlan(item: ClaimedItem, row: ItemRow, keyOf: KeyLookup, research: ResearchFinding[] = []): Promise<Plan> {
  const key = await textKey(keyOf, item.userId);
  const s = settingsOf(row);
  const { value } = await requestChat(key, row.model, planPrompt(row.prompt, s, research), {
    temperature: s.temperature ?? 0.7,
    maxTokens: 1200,
    check: (text) => {
      const plan = planFromAnswer(text);
      return plan ? { ...plan, faq: s.includeQA ? plan.faq : [] } : null;
    },
  });
  return value;
}

/** The messages for one section of the post (exported for the tests of its wording). */
export function sectionPrompt(
  topic: string,
  plan: Plan,
  part: { section?: PlanSection; faq?: string[] },
  words: number,
  s: Settings,
): { system: string; user: string } {
  const outline = plan.sections.map((x) => `${'#'.repeat(x.level)} ${x.heading}`).join('\n');
  const system =
    'You are an expert blog writer. Write only the section asked for, in Markdown, without its heading and without a title. Do not use HTML.';
  const what = part.section
    ? [`Section: ${part.section.heading}`, part.section.intent ? `It covers: ${part.section.intent}` : '']
    : [
        `Answer these reader questions, each as a "### " heading with the question followed by its answer:`,
        ...part.faq!.map((q) => `- ${q}`),
      ];
  const user = [
    `Write one part of the blog post "${plan.title}" about: ${topic}`,
    `The post's outline:\n${outline}`,
    ...what,
    voice(s),
    s.includeBulletPoints ? 'Use bullet-point lists where they help.' : 'Do not use bullet-point lists.',
    `Length: about ${words} words.`,
  ]
    .filter(Boolean)
    .join('\n');
  return { system, user };
}

/** A section's answer without a heading the model repeated on top of it. */
function bodyOf(answer: string, heading: string | undefined): string {
  let text = answer
    .trim()
    .replace(/^```(?:markdown|md)?\s*\n([\s\S]*?)\n```$/i, '$1')
    .trim();
  const first = text.match(/^#{1,6}\s+(.+?)\s*#*\s*$/m);
  if (first && text.indexOf(first[0]) === 0 && (!heading || first[1]!.toLowerCase() === heading.toLowerCase())) {
    text = text.slice(first[0].length).trim();
  }
  return text;
}

const FAQ_HEADING = 'FAQ';
const SOURCES_HEADING = 'Sources';

/**
 * The post written from its approved plan: each section (and the FAQ's answers) asked for with its
 * share of the requested length, several at once through `gate`, each stored as it comes; those a
 * previous delivery stored are not asked again. The plan's research sources close the post.
 * `answered` runs once the providers are done.
 */
export async function writeFromPlan(
  item: ClaimedItem,
  row: ItemRow,
  plan: Plan,
  sources: ResearchSource[],
  keyOf: KeyLookup,
  answered: () => Promise<void>,
  gate: CallGate | undefined,
  db: Db,
): Promise<Output> {
  const key = await textKey(keyOf, item.userId);
  const s = settingsOf(row);
  const faq = s.includeQA ? plan.faq : [];
  const total = wordsByLength[s.contentLength] ?? 1200;
  const share = wordsPerPart(total, plan.sections.length, faq.length);
  const parts: { section?: PlanSection; faq?: string[]; words: number }[] = [
    ...plan.sections.map((section) => ({ section, words: share.section })),
    ...(faq.length > 0 ? [{ faq, words: share.faq }] : []),
  ];
  const done = await storedSections(item, db);
  const run = gate ? gate.run.bind(gate) : <T>(fn: () => Promise<T>) => fn();
  await Promise.all(
    parts.map(async (part, idx) => {
      if (done.has(idx)) return;
      const { value } = await run(() =>
        requestChat(key, row.model, sectionPrompt(row.prompt, plan, part, part.words, s), {
          temperature: s.temperature ?? 0.7,
          // Room for the words asked (about 1.6 tokens a word, more for CJK), never less than a paragraph.
          maxTokens: Math.max(256, Math.ceil(part.words * 2.5)),
          check: (text) => bodyOf(text, part.section?.heading) || null,
        }),
      );
      await storeSection(item, idx, value, db);
      done.set(idx, value);
    }),
  );
  const markdown = [
    `# ${plan.title}`,
    ...parts.map((part, idx) =>
      part.section
        ? `${'#'.repeat(part.section.level)} ${part.section.heading}\n\n${done.get(idx)}`
        : `## ${FAQ_HEADING}\n\n${done.get(idx)}`,
    ),
    sourcesMarkdown(sources, SOURCES_HEADING),
  ]
    .filter(Boolean)
    .join('\n\n');
  let images: Output['images'] = [];
  let figure = '';
  if (s.embedImage) {
    const imageKey = await keyOf(item.userId, 'replicate');
    if (!imageKey) throw new ProviderError('no_image_key', 'No API key for the image provider.', false);
    const settings = row.settings;
    const [image] = await generateImages(imageKey, plan.title, {
      model: String(settings.imageModel ?? imageDefaults.model),
      aspectRatio: String(settings.aspectRatio ?? imageDefaults.aspectRatio),
      stylePreset: String(settings.stylePreset ?? imageDefaults.stylePreset),
      guidanceScale: Number(settings.guidanceScale ?? imageDefaults.guidanceScale),
      numOutputs: 1,
    });
    const id = crypto.randomUUID();
    images = [{ ...image!, id, idx: 0 }];
    figure = sanitizeArticle(`<figure><img src="/images/${id}" alt=""></figure>`);
  }
  await answered();
  const article = markdownToArticle(markdown, plan.title);
  const html = figure + article.html;
  const text = sanitizedHtmlToText(html);
  return {
    title: plan.title,
    content: html,
    text,
    seo: seoWithFallbacks({ metaDescription: plan.metaDescription }, { title: plan.title, html: article.html, topic: row.prompt }),
    metadata: { originalPrompt: row.prompt, images: images.map((i) => i.id), usage: null, sections: parts.length, ...countText(text) },
    images,
  };
}
