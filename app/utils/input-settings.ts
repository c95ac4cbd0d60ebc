import { z } from 'zod';
import {
  DEFAULT_IMAGE_MODEL,
  DEFAULT_TEXT_MODEL,
  GUIDANCE,
  OUTPUTS,
  TEMPERATURE,
  TEMPLATE_DEFAULT_TEXT_MODEL,
  articleTypes,
  aspectRatios,
  contentLanguages,
  contentLengths,
  findModel,
  imageDefaults,
  pointsOfView,
  readingLevels,
  seedValue,
  settingsDefaults,
  stylePresets,
  textDefaults,
  tones,
  writingStyles,
  type ModelKind,
  type StructureFlag,
} from '~/catalogue';

// The shapes of templates' settings, the application settings and the last-used values,
// shared by the server (validation, defaults) and the browser (forms). Two readings of each:
// `strict` for what a client sends (a wrong value is a 400), `stored` for what we read back (a value
// that no longer fits, e.g. a model removed from the catalogue, falls back to its default).

/**
 * A text generation's settings, once: what the generation form holds, what a run stores for each
 * item and what the prompt is built from (the provider adds its temperature and token budget).
 */
export type TextSettingValues = {
  model: string;
  language: string;
  toneOfVoice: string;
  pointOfView: string;
  articleType: string;
  readingLevel: string;
  contentLength: string;
  writingStyle: string;
} & Record<StructureFlag, boolean>;

/** An image generation's settings (the form's image fields, a run's stored settings, the provider's input). */
export type ImageSettingValues = { model: string; aspectRatio: string; stylePreset: string; guidanceScale: number; numOutputs: number };

export type TemplateType = ModelKind;
export const templateTypes = ['text', 'image'] as const;

/** A template's aspect ratio defaults to 1:1; a saved template carries maxTokens 2048; a loaded one without it 1000. */
export const TEMPLATE_DEFAULT_ASPECT_RATIO = '1:1' as const;
export const TEMPLATE_SAVED_MAX_TOKENS = 2048;
export const TEMPLATE_LOADED_MAX_TOKENS = 1000;

const oneOf = <T extends readonly [string, ...string[]]>(values: T) => z.enum(values as unknown as [T[number], ...T[number][]]);
const bool = z.preprocess((v) => (v === 'on' || v === 'true' ? true : v === 'false' ? false : v), z.boolean());
const num = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number().finite());

const textModel = z.string().refine((id) => id === TEMPLATE_DEFAULT_TEXT_MODEL || findModel(id)?.kind === 'text', 'Unknown text model');
const imageModel = z.string().refine((id) => findModel(id)?.kind === 'image', 'Unknown image model');
const guidance = num.pipe(
  z
    .number()
    .min(GUIDANCE.min)
    .max(GUIDANCE.max)
    .refine((v) => Number.isInteger(v / GUIDANCE.step), 'Step 0.5'),
);
const outputs = num.pipe(z.number().int().min(OUTPUTS.min).max(OUTPUTS.max));

const textFields = {
  model: textModel,
  language: oneOf(contentLanguages),
  toneOfVoice: oneOf(tones),
  pointOfView: z.preprocess((v) => seedValue('pointOfView', v), oneOf(pointsOfView)),
  articleType: oneOf(articleTypes),
  readingLevel: z.preprocess((v) => seedValue('readingLevel', v), oneOf(readingLevels)),
  contentLength: oneOf(contentLengths),
  writingStyle: oneOf(writingStyles),
  temperature: num.pipe(z.number().min(0).max(2)),
  maxTokens: num.pipe(z.number().int().min(1).max(32_000)),
  includeIntro: bool,
  includeOutro: bool,
  includeHeadings: bool,
  includeBulletPoints: bool,
  includeQA: bool,
  includeKeyTakeaways: bool,
  embedImage: bool,
};
export const textTemplateDefaults = {
  ...textDefaults,
  model: TEMPLATE_DEFAULT_TEXT_MODEL,
  temperature: TEMPERATURE,
  maxTokens: TEMPLATE_LOADED_MAX_TOKENS,
};

const imageFields = {
  model: imageModel,
  aspectRatio: oneOf(aspectRatios),
  stylePreset: oneOf(stylePresets),
  guidanceScale: guidance,
  numOutputs: outputs,
};
export const imageTemplateDefaults = { ...imageDefaults, aspectRatio: TEMPLATE_DEFAULT_ASPECT_RATIO };

type Fields = Record<string, z.ZodTypeAny>;
/** Every field optional; given values must be valid; unknown keys dropped. */
function strictOf<F extends Fields>(fields: F) {
  return z.object(Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.optional()])) as { [K in keyof F]: z.ZodOptional<F[K]> });
}
/**
 * Every field present: a missing or invalid value becomes its default. A missing one takes it
 * without failing first (a failure builds an error with its issues: most stored objects are sparse,
 * and the page shells read them on every request).
 */
function storedOf<F extends Fields, D extends { [K in keyof F]: z.infer<F[K]> }>(fields: F, defaults: D) {
  return z
    .object(
      Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.default(defaults[k as keyof D]).catch(defaults[k as keyof D])])) as {
        [K in keyof F]: z.ZodCatch<z.ZodDefault<F[K]>>;
      },
    )
    .catch(defaults as never);
}
/**
 * A stored-settings parse remembered by the stored JSON: every visit of a page parses the same row,
 * and the parse (a default and a fallback for each of some twenty fields) was a visible part of the
 * workspace's render. The values are flat (strings, numbers, booleans), so a shallow copy is a
 * result of its own that a caller may change.
 */
function rememberedParse<T extends Record<string, unknown>>(schema: z.ZodType<T, z.ZodTypeDef, unknown>): (stored: unknown) => T {
  const seen = new Map<string, T>();
  return (stored) => {
    const key = JSON.stringify(stored ?? null);
    let parsed = seen.get(key);
    if (parsed === undefined) {
      // The rows of a process's users: bounded, as a guard.
      if (seen.size >= 1000) seen.clear();
      parsed = schema.parse(stored);
      seen.set(key, parsed);
    }
    return { ...parsed };
  };
}

function withDefaults<F extends Fields, D extends { [K in keyof F]: z.infer<F[K]> }>(fields: F, defaults: D) {
  return z.object(
    Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.default(defaults[k as keyof D])])) as {
      [K in keyof F]: z.ZodDefault<F[K]>;
    },
  );
}

export const textTemplateSettings = {
  strict: strictOf(textFields),
  /** A new template: missing values take their defaults; a saved text template carries maxTokens 2048. */
  create: withDefaults(textFields, { ...textTemplateDefaults, maxTokens: TEMPLATE_SAVED_MAX_TOKENS }),
  stored: storedOf(textFields, textTemplateDefaults),
};
export const imageTemplateSettings = {
  strict: strictOf(imageFields),
  create: withDefaults(imageFields, imageTemplateDefaults),
  stored: storedOf(imageFields, imageTemplateDefaults),
};
export type TextTemplateSettings = z.infer<typeof textTemplateSettings.stored>;
export type ImageTemplateSettings = z.infer<typeof imageTemplateSettings.stored>;
export type TemplateSettings = TextTemplateSettings | ImageTemplateSettings;

export function templateSettingsFor(type: TemplateType) {
  return type === 'text' ? textTemplateSettings : imageTemplateSettings;
}

/**
 * A template's settings as the generation form posts them (without JavaScript): the type's fields
 * that are in the form, a switch read as the form sends it (ticked 'on', unticked absent).
 */
export function templateSettingsOfForm(type: TemplateType, form: { get(name: string): unknown; has(name: string): boolean }) {
  const shape = templateSettingsFor(type).strict.shape as Record<string, z.ZodTypeAny>;
  const out: Record<string, string> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const value = form.get(key);
    if (schema.safeParse(true).success) out[key] = String(value === 'on' || value === 'true');
    else if (typeof value === 'string' && form.has(key)) out[key] = value;
  }
  return out;
}

/** Template names: non-empty after trimming, at most 100 characters. */
export const TEMPLATE_NAME_MAX = 100;

// ---------------------------------------------------------------------------------------------
// Application settings (API keys live apart, sealed)

const appFields = {
  defaultTextModel: z.string().refine((id) => findModel(id)?.kind === 'text', 'Unknown text model'),
  defaultImageModel: imageModel,
  darkMode: bool,
  autoSave: bool,
  aspectRatio: oneOf(aspectRatios),
  stylePreset: oneOf(stylePresets),
  guidanceScale: guidance,
  numOutputs: outputs,
};
const storedAppSettings = storedOf(appFields, settingsDefaults);
export const appSettings = { strict: strictOf(appFields), stored: storedAppSettings, read: rememberedParse(storedAppSettings) };
export type AppSettings = z.infer<typeof appSettings.stored>;

// ---------------------------------------------------------------------------------------------
// Last-used values (the user settings); replicateApiKey goes to the sealed keys, never here.

const lastUsedFields = {
  lastTextLanguage: textFields.language,
  lastTextToneOfVoice: textFields.toneOfVoice,
  lastTextPointOfView: textFields.pointOfView,
  lastTextArticleType: textFields.articleType,
  lastTextReadingLevel: textFields.readingLevel,
  lastTextContentLength: textFields.contentLength,
  lastTextWritingStyle: textFields.writingStyle,
  lastTextIncludeIntro: bool,
  lastTextIncludeOutro: bool,
  lastTextIncludeHeadings: bool,
  lastTextIncludeBulletPoints: bool,
  lastTextIncludeQA: bool,
  lastTextIncludeKeyTakeaways: bool,
  lastTextEmbedImage: bool,
  lastImageAspectRatio: imageFields.aspectRatio,
  lastImageStylePreset: imageFields.stylePreset,
  lastImageGuidanceScale: guidance,
  lastImageNumOutputs: outputs,
  defaultImageModel: imageModel,
};
export const lastUsedDefaults = {
  lastTextLanguage: textDefaults.language,
  lastTextToneOfVoice: textDefaults.toneOfVoice,
  lastTextPointOfView: textDefaults.pointOfView,
  lastTextArticleType: textDefaults.articleType,
  lastTextReadingLevel: textDefaults.readingLevel,
  lastTextContentLength: textDefaults.contentLength,
  lastTextWritingStyle: textDefaults.writingStyle,
  lastTextIncludeIntro: textDefaults.includeIntro,
  lastTextIncludeOutro: textDefaults.includeOutro,
  lastTextIncludeHeadings: textDefaults.includeHeadings,
  lastTextIncludeBulletPoints: textDefaults.includeBulletPoints,
  lastTextIncludeQA: textDefaults.includeQA,
  lastTextIncludeKeyTakeaways: textDefaults.includeKeyTakeaways,
  lastTextEmbedImage: textDefaults.embedImage,
  lastImageAspectRatio: imageDefaults.aspectRatio,
  lastImageStylePreset: imageDefaults.stylePreset,
  lastImageGuidanceScale: imageDefaults.guidanceScale,
  lastImageNumOutputs: imageDefaults.numOutputs,
  defaultImageModel: DEFAULT_IMAGE_MODEL,
} as const;
const storedLastUsed = storedOf(lastUsedFields, lastUsedDefaults);
export const lastUsed = {
  strict: strictOf(lastUsedFields).extend({ replicateApiKey: z.string().max(500).optional() }),
  stored: storedLastUsed,
  /** stored.parse, remembered (see rememberedParse). */
  read: rememberedParse(storedLastUsed),
};
export type LastUsed = z.infer<typeof lastUsed.stored>;

/** The generation form's field names → the last-used names (what a run start saves). */
export const lastUsedOfFormField = {
  language: 'lastTextLanguage',
  toneOfVoice: 'lastTextToneOfVoice',
  pointOfView: 'lastTextPointOfView',
  articleType: 'lastTextArticleType',
  readingLevel: 'lastTextReadingLevel',
  contentLength: 'lastTextContentLength',
  writingStyle: 'lastTextWritingStyle',
  includeIntro: 'lastTextIncludeIntro',
  includeOutro: 'lastTextIncludeOutro',
  includeHeadings: 'lastTextIncludeHeadings',
  includeBulletPoints: 'lastTextIncludeBulletPoints',
  includeQA: 'lastTextIncludeQA',
  includeKeyTakeaways: 'lastTextIncludeKeyTakeaways',
  embedImage: 'lastTextEmbedImage',
  aspectRatio: 'lastImageAspectRatio',
  stylePreset: 'lastImageStylePreset',
  guidanceScale: 'lastImageGuidanceScale',
  numOutputs: 'lastImageNumOutputs',
} as const satisfies Record<string, keyof LastUsed>;

/** The last-used values of a submitted generation form (only the fields it carries). */
export function lastUsedFromForm(form: Record<string, unknown>): Partial<Record<keyof LastUsed, unknown>> {
  const out: Partial<Record<keyof LastUsed, unknown>> = {};
  for (const [field, key] of Object.entries(lastUsedOfFormField)) if (form[field] !== undefined) out[key] = form[field];
  if (form.generationType === 'image' && typeof form.model === 'string') out.defaultImageModel = form.model;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Initial values of the generation form and the model-reset rule

/** Model reset: text → the default search-enabled mini model; image → the settings' default image model, else the fast flux model. */
export function resetModel(type: TemplateType, settings?: Pick<AppSettings, 'defaultImageModel'> | null): string {
  if (type === 'text') return DEFAULT_TEXT_MODEL;
  const preferred = settings?.defaultImageModel;
  return preferred && findModel(preferred)?.kind === 'image' ? preferred : DEFAULT_IMAGE_MODEL;
}

/** The generation form's first values on a visit: the last-used values, the settings' defaults, then the catalogue's. */
export function initialFormValues(last: LastUsed, settings: AppSettings) {
  return {
    text: {
      model: settings.defaultTextModel,
      language: last.lastTextLanguage,
      toneOfVoice: last.lastTextToneOfVoice,
      pointOfView: last.lastTextPointOfView,
      articleType: last.lastTextArticleType,
      readingLevel: last.lastTextReadingLevel,
      contentLength: last.lastTextContentLength,
      writingStyle: last.lastTextWritingStyle,
      includeIntro: last.lastTextIncludeIntro,
      includeOutro: last.lastTextIncludeOutro,
      includeHeadings: last.lastTextIncludeHeadings,
      includeBulletPoints: last.lastTextIncludeBulletPoints,
      includeQA: last.lastTextIncludeQA,
      includeKeyTakeaways: last.lastTextIncludeKeyTakeaways,
      embedImage: last.lastTextEmbedImage,
    },
    image: {
      model: resetModel('image', { defaultImageModel: last.defaultImageModel ?? settings.defaultImageModel }),
      aspectRatio: last.lastImageAspectRatio,
      stylePreset: last.lastImageStylePreset,
      guidanceScale: last.lastImageGuidanceScale,
      numOutputs: last.lastImageNumOutputs,
    },
  };
}

/**
 * What loading a template sets on the form: its type, its model (a model the catalogue no
 * longer has, or the templates' own default, resets by the model rule) and its settings with defaults.
 */
export function applyTemplate(
  template: { type: TemplateType; settings: unknown },
  settings?: Pick<AppSettings, 'defaultImageModel'> | null,
) {
  const values = templateSettingsFor(template.type).stored.parse(template.settings ?? {}) as TemplateSettings;
  const raw = template.settings && typeof template.settings === 'object' ? (template.settings as { model?: unknown }).model : undefined;
  const known = typeof raw === 'string' && findModel(raw)?.kind === template.type;
  return { generationType: template.type, ...values, model: known ? values.model : resetModel(template.type, settings) };
}
