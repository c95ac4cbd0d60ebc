import crypto from 'node:crypto';
import { imageDefaults } from '~/catalogue';
import { getLogger } from '~/runtime/logger.server';
import { env } from '~/runtime/env.server';
import { briefOf, type TopicBrief } from '~/utils/csv-file';
import { cleanSeo, seoWithFallbacks, splitSeoBlock, type SeoFields } from '~/utils/seo-fields';
import { contentChecks } from '~/utils/quality/report';
import { countText } from '../results.server';
import type { ContentChecks } from '../quality/report.server';
import {
  buildImagePrompt,
  generateImages,
  sanitizedHtmlToText,
  looksNonEnglish,
  markdownToArticle,
  ProviderError,
  requestArticle,
  sanitizeArticle,
  translateToEnglish,
  type ImageBytes,
  type ImageSettings,
  type TextSettings,
} from '../providers.server';
import type { ClaimedItem, ItemRow, KeyLookup } from './item.server';

// What the providers make of an item: an article (with its SEO fields and an embedded image) or
// images, converted and ready to be stored by finish.server.ts.

export type Output = {
  title: string;
  /** The article's plain text (search and counts), when already computed. */
  text?: string;
  content: string;
  metadata: Record<string, unknown>;
  images: (ImageBytes & { id: string; idx: number })[];
  /** The CSV row's keywords (searchable). */
  keywords?: string;
  /** A text result's SEO fields (generated with the article, or derived). */
  seo?: SeoFields;
  /** A text result's quality checks on its content, and its shingles for the near-duplicate lookup. */
  quality?: ContentChecks;
};

function imageSettingsOf(settings: Record<string, unknown>, model: string, numOutputs: number): ImageSettings {
  return {
    model,
    aspectRatio: String(settings.aspectRatio ?? imageDefaults.aspectRatio),
    stylePreset: String(settings.stylePreset ?? imageDefaults.stylePreset),
    guidanceScale: Number(settings.guidanceScale ?? imageDefaults.guidanceScale),
    numOutputs,
  };
}

async function requireKey(keyOf: KeyLookup, userId: string, provider: 'openrouter' | 'replicate'): Promise<string> {
  const key = await keyOf(userId, provider);
  if (key) return key;
  throw provider === 'openrouter'
    ? new ProviderError('no_text_key', 'No API key for the text provider.', false)
    : new ProviderError('no_image_key', 'No API key for the image provider.', false);
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The item's own CSV columns (title, keywords, instructions), kept on its metadata by startRun. */
function briefOfRow(row: ItemRow): TopicBrief | null {
  const brief = row.metadata?.brief;
  return brief && typeof brief === 'object' ? briefOf(brief as TopicBrief) : null;
}

/** `answered` is awaited once the providers are done, before the CPU work of converting. */
export async function runText(item: ClaimedItem, row: ItemRow, keyOf: KeyLookup, answered: () => Promise<void>): Promise<Output> {
  const key = await requireKey(keyOf, item.userId, 'openrouter');
  const settings = { ...row.settings, model: row.model } as unknown as TextSettings & { embedImage?: boolean };
  const brief = briefOfRow(row);
  const answer = await requestArticle(key, row.prompt, settings, brief);
  // The SEO fields the model wrote after the article (same call); the rest derived below.
  const { article: markdown, seo: seoGiven } = splitSeoBlock(answer.text);
  const convert = () => {
    const generated = markdownToArticle(markdown, row.prompt);
    // A title asked for in the CSV is the post's title, whatever heading the model wrote.
    return brief?.title ? { ...generated, title: brief.title } : generated;
  };
  const images: Output['images'] = [];
  let article: ReturnType<typeof convert>;
  let html: string;
  if (settings.embedImage) {
    article = convert(); // the image is drawn from the title
    const replicateKey = await requireKey(keyOf, item.userId, 'replicate');
    const imageModel = String(row.settings.imageModel ?? imageDefaults.model);
    const [image] = await generateImages(replicateKey, `${article.title}`, imageSettingsOf(row.settings, imageModel, 1));
    await answered();
    const id = crypto.randomUUID();
    images.push({ ...image!, id, idx: 0 });
    html = sanitizeArticle(`<figure><img src="/images/${id}" alt="${escapeHtml(article.title)}"></figure>`) + article.html;
  } else {
    await answered();
    article = convert();
    html = article.html;
  }
  const text = sanitizedHtmlToText(html);
  const seo = seoWithFallbacks(seoGiven, { title: article.title, html: article.html, topic: row.prompt, keywords: brief?.keywords });
  return {
    title: article.title,
    content: html,
    text,
    seo: {
      ...seo,
      // Only the model's own: left out, it is derived when read, so it follows an edited title.
      seoTitle: cleanSeo(seoGiven).seoTitle,
    },
    quality: env.QUALITY_REPORTS_OFF
      ? undefined
      : contentChecks({ title: article.title, html, topic: row.prompt, settings: row.settings, seo, keywords: brief?.keywords }),
    metadata: { originalPrompt: row.prompt, images: images.map((i) => i.id), usage: answer.usage ?? null, ...countText(text) },
    images,
    keywords: brief?.keywords,
  };
}

export async function runImage(item: ClaimedItem, row: ItemRow, keyOf: KeyLookup, answered: () => Promise<void>): Promise<Output> {
  const key = await requireKey(keyOf, item.userId, 'replicate');
  let prompt = row.prompt;
  let translatedPrompt: string | null = null;
  if (looksNonEnglish(row.prompt)) {
    const textKey = await keyOf(item.userId, 'openrouter');
    if (textKey) {
      try {
        translatedPrompt = await translateToEnglish(textKey, row.prompt);
        prompt = translatedPrompt;
      } catch (err) {
        getLogger().warn({ err: String(err), resultId: item.resultId }, 'prompt translation failed; using the original');
      }
    }
  }
  const numOutputs = Math.min(4, Math.max(1, Number(row.settings.numOutputs ?? 1)));
  const brief = briefOfRow(row);
  const list = await generateImages(key, buildImagePrompt(prompt, brief), imageSettingsOf(row.settings, row.model, numOutputs));
  await answered();
  const images = list.map((img, idx) => ({ ...img, id: crypto.randomUUID(), idx }));
  return {
    title: (brief?.title ?? row.prompt).slice(0, 300),
    content: `/images/${images[0]!.id}`,
    metadata: { originalPrompt: row.prompt, translatedPrompt, images: images.map((i) => i.id) },
    images,
    keywords: brief?.keywords,
  };
}
