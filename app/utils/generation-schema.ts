import { z } from 'zod';
import {
  articleTypes,
  aspectRatios,
  contentLanguages,
  contentLengths,
  DEFAULT_MAX_TOPICS_PER_RUN,
  findModel,
  GUIDANCE,
  imageDefaults,
  MAX_TOPIC_LENGTH,
  maxTokensByLength,
  OUTPUTS,
  pointsOfView,
  readingLevels,
  runCost,
  seedValue,
  stylePresets,
  textDefaults,
  tones,
  writingStyles,
  type ModelKind,
  modelIds,
} from '~/catalogue';
import { BRIEF_MAX } from '~/utils/csv-file';
import { META_DESCRIPTION_MAX, SEO_TITLE_MAX, seoFieldsSchema } from '~/utils/seo-fields';
import { TITLE_MAX } from '~/utils/title-heading';
import { splitTopics } from '~/utils/text-lines';

// The generation payloads, shared by the workspace form (Conform's parseWithZod, in the
// browser and in the action) and the JSON API (POST /api/generate/text|image). No server imports.
//
// Messages are keys of the `generation` namespace: pass a translator for that namespace
// (`useTranslation('generation').t`, `getT(request, 'generation')`) or none to get the keys themselves.
//
// `mode: 'form'`: an HTML checkbox that is not ticked sends nothing, so a missing flag is false.
// `mode: 'json'` (default): a missing flag takes the catalogue default (the six structure flags: true).

export type Translate = (key: string, options?: Record<string, unknown>) => string;
const keysOnly: Translate = (key) => key;

export type GenerationSchemaOptions = {
  /** MAX_TOPICS_PER_RUN of the server (the browser gets it from the loader). */
  maxTopics?: number;
  mode?: 'form' | 'json';
};

export { splitTopics };

/** The credits a run would cost (for the usage line): topics × model credits (+1 per post with an image). */
export function estimateCredits(modelId: string, topics: number, embedImage = false): number {
  const model = findModel(modelId);
  return model ? runCost(model, topics, embedImage) : 0;
}

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);

function prompts(t: Translate, maxTopics: number, kind: ModelKind = 'text') {
  // Image prompts are not blog topics: image mode has its own words.
  const required = kind === 'image' ? 'validation.imagePromptsRequired' : 'validation.promptsRequired';
  const noneValid = kind === 'image' ? 'validation.noValidImagePrompts' : 'validation.noValidTopics';
  return z
    .union([z.string(), z.array(z.string())], {
      errorMap: () => ({ message: t(required) }),
    })
    .superRefine((value, ctx) => {
      if (value === '' || (Array.isArray(value) && value.length === 0)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: t(required) });
        return z.NEVER;
      }
      const topics = typeof value === 'string' ? splitTopics(value) : value.flatMap(splitTopics);
      if (topics.length === 0) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: t(noneValid) });
      } else if (topics.length > maxTopics) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: t('validation.tooManyTopics', { max: maxTopics, count: topics.length }) });
      } else {
        const line = topics.findIndex((topic) => topic.length > MAX_TOPIC_LENGTH);
        if (line >= 0) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            message: t('validation.topicTooLong', { max: MAX_TOPIC_LENGTH, line: line + 1 }),
          });
        }
      }
    })
    .transform((value) => (typeof value === 'string' ? splitTopics(value) : value.flatMap(splitTopics)));
}

function model(t: Translate, kind: ModelKind) {
  return z.preprocess(
    trimmed,
    // An enum of the catalogue's ids, so the API document lists them; nothing sent, or blank, asks
    // for a model, anything else names an unknown one.
    z.enum(modelIds(kind), {
      errorMap: (issue, ctx) => ({
        message: issue.code === 'invalid_enum_value' && ctx.data !== '' ? t('validation.modelUnknown') : t('validation.modelRequired'),
      }),
    }),
  );
}

function option<T extends readonly [string, ...string[]]>(
  t: Translate,
  values: T,
  fallback: T[number],
  seed?: Parameters<typeof seedValue>[0],
) {
  return z.preprocess(
    (v) => (v === '' || v === null ? undefined : seed ? seedValue(seed, v) : v),
    z.enum(values, { errorMap: () => ({ message: t('validation.invalidOption') }) }).default(fallback as never),
  ) as unknown as z.ZodDefault<z.ZodEnum<z.Writeable<T>>>;
}

function flag(mode: 'form' | 'json', fallback: boolean) {
  return z.preprocess((v) => (v === null ? undefined : v), z.boolean().default(mode === 'form' ? false : fallback));
}

function number(t: Translate, key: string, min: number, max: number, fallback: number | undefined, int = false) {
  let base = z
    .number({ invalid_type_error: t(key), required_error: t(key) })
    .min(min, t(key))
    .max(max, t(key));
  if (int) base = base.int(t(key));
  const coerced = z.preprocess(
    (v) => {
      if (v === '' || v === null) return undefined;
      if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
      return v;
    },
    fallback === undefined ? base.optional() : base.default(fallback),
  );
  return coerced;
}

const apiKey = (t: Translate) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() || undefined : v === null ? undefined : v),
    z.string().max(300, t('validation.apiKeyTooLong')).optional(),
  );

/**
 * Optional per-topic columns (a CSV's title, keywords, instructions), matched to the topics by their
 * text: `[{ topic, title?, keywords?, instructions? }]`. A row whose topic is not in `prompts` is ignored.
 */
function rows(t: Translate, maxTopics: number) {
  const text = (max: number) => z.string().max(max, t('inputs:brief.errors.tooLong')).optional();
  return z
    .array(
      z.object({
        topic: z.string().max(MAX_TOPIC_LENGTH * 2, t('inputs:brief.errors.tooLong')),
        title: text(BRIEF_MAX.title),
        keywords: text(BRIEF_MAX.keywords),
        instructions: text(BRIEF_MAX.instructions),
      }),
      { invalid_type_error: t('inputs:brief.errors.invalid') },
    )
    .max(maxTopics, t('inputs:brief.errors.invalid'))
    .optional();
}

function imageFields(t: Translate) {
  return {
    aspectRatio: option(t, aspectRatios, imageDefaults.aspectRatio),
    stylePreset: option(t, stylePresets, imageDefaults.stylePreset),
    guidanceScale: number(t, 'validation.guidanceScale', GUIDANCE.min, GUIDANCE.max, GUIDANCE.default),
  };
}

/** POST /api/generate/text and the workspace form with type=text. */
export function textGenerationSchema(t: Translate = keysOnly, opts: GenerationSchemaOptions = {}) {
  const mode = opts.mode ?? 'json';
  return z
    .object({
      type: z.literal('text').default('text'),
      prompts: prompts(t, opts.maxTopics ?? DEFAULT_MAX_TOPICS_PER_RUN),
      model: model(t, 'text'),
      temperature: number(t, 'validation.temperature', 0, 2, textDefaults.temperature),
      maxTokens: number(t, 'validation.maxTokens', 16, 16_000, undefined, true),
      language: option(t, contentLanguages, textDefaults.language),
      toneOfVoice: option(t, tones, textDefaults.toneOfVoice),
      pointOfView: option(t, pointsOfView, textDefaults.pointOfView, 'pointOfView'),
      articleType: option(t, articleTypes, textDefaults.articleType),
      readingLevel: option(t, readingLevels, textDefaults.readingLevel, 'readingLevel'),
      contentLength: option(t, contentLengths, textDefaults.contentLength),
      writingStyle: option(t, writingStyles, textDefaults.writingStyle),
      includeIntro: flag(mode, textDefaults.includeIntro),
      includeOutro: flag(mode, textDefaults.includeOutro),
      includeHeadings: flag(mode, textDefaults.includeHeadings),
      includeBulletPoints: flag(mode, textDefaults.includeBulletPoints),
      includeQA: flag(mode, textDefaults.includeQA),
      includeKeyTakeaways: flag(mode, textDefaults.includeKeyTakeaways),
      includeSourceCitations: flag(mode, false),
      embedImage: flag(mode, textDefaults.embedImage),
      // Plan first: every post is planned and waits for review before it is written.
      planFirst: flag(mode, false),
      // Publish only the run's posts whose quality report passes, or that the owner approved.
      qualityGate: flag(mode, false),
      // The embedded image's settings (used only with embedImage).
      ...imageFields(t),
      rows: rows(t, opts.maxTopics ?? DEFAULT_MAX_TOPICS_PER_RUN),
      replicateApiKey: apiKey(t),
    })
    .transform((v) => ({ ...v, maxTokens: v.maxTokens ?? maxTokensByLength[v.contentLength] ?? 1700 }));
}

/** POST /api/generate/image and the workspace form with type=image. */
export function imageGenerationSchema(t: Translate = keysOnly, opts: GenerationSchemaOptions = {}) {
  return z.object({
    type: z.literal('image').default('image'),
    prompts: prompts(t, opts.maxTopics ?? DEFAULT_MAX_TOPICS_PER_RUN, 'image'),
    model: model(t, 'image'),
    // Accepted for payload compatibility; images do not use them.
    temperature: number(t, 'validation.temperature', 0, 2, undefined),
    maxTokens: number(t, 'validation.maxTokens', 16, 16_000, undefined, true),
    ...imageFields(t),
    numOutputs: number(t, 'validation.numOutputs', OUTPUTS.min, OUTPUTS.max, OUTPUTS.default, true),
    rows: rows(t, opts.maxTopics ?? DEFAULT_MAX_TOPICS_PER_RUN),
    replicateApiKey: apiKey(t),
  });
}

/** The workspace form: one schema for both kinds, chosen by `type` ('text' | 'image'). */
export function generationFormSchema(t: Translate = keysOnly, opts: GenerationSchemaOptions = {}) {
  const o = { mode: 'form' as const, ...opts };
  return z
    .preprocess(
      (v) => (v && typeof v === 'object' && !('type' in v) ? { ...v, type: 'text' } : v),
      z.discriminatedUnion('type', [
        // discriminatedUnion needs plain objects: the text transform is applied after.
        textGenerationSchema(t, o).innerType(),
        imageGenerationSchema(t, o),
      ]),
    )
    .transform((v) => (v.type === 'text' ? { ...v, maxTokens: v.maxTokens ?? maxTokensByLength[v.contentLength] ?? 1700 } : v));
}

export type TextGenerationInput = z.output<ReturnType<typeof textGenerationSchema>>;
export type ImageGenerationInput = z.output<ReturnType<typeof imageGenerationSchema>>;
export type GenerationInput = TextGenerationInput | ImageGenerationInput;

/** Query of GET /api/results: page from 1, limit 1..100 (default 20), type, search. */
export const resultsQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1),
  limit: z.coerce.number().int().min(1).max(100).catch(20),
  type: z.enum(['all', 'text', 'image']).catch('all'),
  search: z
    .string()
    .transform((s) => s.trim().slice(0, 200))
    .catch(''),
  /** The review list: posts whose report failed, not approved (`needs`), or those approved. */
  review: z.enum(['needs', 'approved']).optional().catch(undefined),
});
export type ResultsQuery = z.output<typeof resultsQuerySchema>;

/** A query parameter sent empty counts as not sent; anything else sent is checked, never replaced. */
const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);

const RESULT_TYPES = ['all', 'text', 'image'] as const;
const SEARCH_MAX = 200;

function wholeNumber(t: Translate, field: string, min: number, max: number, fallback: number) {
  const message = t('validation.queryNumber', { field, min, max });
  return z.preprocess(
    blankIsAbsent,
    z.coerce.number({ invalid_type_error: message }).int(message).min(min, message).max(max, message).default(fallback),
  );
}

const REVIEW_FILTERS = ['needs', 'approved'] as const;

const resultFilters = (t: Translate) => ({
  review: z.preprocess(
    blankIsAbsent,
    z
      .enum(REVIEW_FILTERS, {
        errorMap: () => ({ message: t('validation.queryOneOf', { field: 'review', values: REVIEW_FILTERS.join(', ') }) }),
      })
      .optional(),
  ),
  type: z.preprocess(
    blankIsAbsent,
    z
      .enum(RESULT_TYPES, { errorMap: () => ({ message: t('validation.queryOneOf', { field: 'type', values: RESULT_TYPES.join(', ') }) }) })
      .default('all'),
  ),
  search: z.preprocess(
    blankIsAbsent,
    z
      .string()
      .max(SEARCH_MAX, t('validation.queryTooLong', { field: 'search', max: SEARCH_MAX }))
      .transform((s) => s.trim())
      .default(''),
  ),
});

/**
 * The API's query of GET /api/results: what the caller sends is used as sent or refused with a 400
 * naming the parameter (the results page keeps the forgiving `resultsQuerySchema` for its URL).
 */
export const resultsApiQuerySchema = (t: Translate = keysOnly) =>
  z.object({
    page: wholeNumber(t, 'page', 1, 1_000_000, 1),
    limit: wholeNumber(t, 'limit', 1, 100, 20),
    ...resultFilters(t),
  });

/** The query of GET /api/results/{id}/download: which of an image result's files (0 to 3). */
export const resultDownloadQuerySchema = (t: Translate = keysOnly) => z.object({ index: wholeNumber(t, 'index', 0, 3, 0) });

/** The API's query of GET /api/results/download-all: the list's filters, checked the same way. */
export const resultsFilterQuerySchema = (t: Translate = keysOnly) => z.object(resultFilters(t));

/** Body of PUT /api/results/{id}/content: the article, and the title and SEO fields when given. */
export const resultContentSchema = (t: Translate = keysOnly) =>
  z.object({
    content: z
      .string({ required_error: t('validation.contentRequired'), invalid_type_error: t('validation.contentRequired') })
      .max(500_000, t('validation.contentTooLong')),
    title: z
      .string({ invalid_type_error: t('validation.titleLength', { max: TITLE_MAX }) })
      .trim()
      .min(1, t('validation.titleLength', { max: TITLE_MAX }))
      .max(TITLE_MAX, t('validation.titleLength', { max: TITLE_MAX }))
      .optional(),
    ...seoFieldsSchema(
      t('validation.metaDescriptionTooLong', { max: META_DESCRIPTION_MAX }),
      t('validation.seoTitleTooLong', { max: SEO_TITLE_MAX }),
    ),
  });
