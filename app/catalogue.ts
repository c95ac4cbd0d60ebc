// The one catalogue of plans, top-up packs, models and generation options. The SQL grants
// (db/functions), the pages, the JSON API and the tests read it; the locales hold only the words
// (keys named here). Shared by server and browser: no secrets, no server imports.

export type PlanId = 'free' | 'pro';
export type TopUpId = 'topup-100' | 'topup-360' | 'topup-1170';
export type SubscriptionStatus = 'free' | 'pro' | 'canceled';

export type Plan = {
  id: PlanId;
  /** Credits granted each monthly period. */
  monthlyCredits: number;
  /** Price in whole US cents per month (0 for Free). */
  priceCents: number;
  /** Environment variable holding the Stripe price id (none for Free). */
  priceEnv: string | null;
  /** i18n keys (namespace `billing`) of the plan's feature list. */
  featureKeys: readonly string[];
};

export type TopUpPack = {
  id: TopUpId;
  credits: number;
  priceCents: number;
  priceEnv: string;
};

export const plans: Readonly<Record<PlanId, Plan>> = {
  free: {
    id: 'free',
    monthlyCredits: 5,
    priceCents: 0,
    priceEnv: null,
    featureKeys: ['plans.free.features.credits', 'plans.free.features.model', 'plans.free.features.support'],
  },
  pro: {
    id: 'pro',
    monthlyCredits: 45,
    priceCents: 1500,
    priceEnv: 'STRIPE_PRICE_PRO',
    featureKeys: [
      'plans.pro.features.credits',
      'plans.pro.features.models',
      'plans.pro.features.wordpress',
      'plans.pro.features.topups',
      'plans.pro.features.support',
    ],
  },
};

// The original price list said "99 credits for $30" for the first pack but named it topup-100; we
// sell 100 (the id, the Stripe price STRIPE_PRICE_TOPUP_100 and every grant already booked say 100).
export const topUpPacks: readonly TopUpPack[] = [
  { id: 'topup-100', credits: 100, priceCents: 3000, priceEnv: 'STRIPE_PRICE_TOPUP_100' },
  { id: 'topup-360', credits: 360, priceCents: 10000, priceEnv: 'STRIPE_PRICE_TOPUP_360' },
  { id: 'topup-1170', credits: 1170, priceCents: 30000, priceEnv: 'STRIPE_PRICE_TOPUP_1170' },
];

/** The plan whose benefits a subscription status carries: a canceled Pro keeps Pro until its period ends. */
export function planOf(status: SubscriptionStatus): Plan {
  return status === 'pro' || status === 'canceled' ? plans.pro : plans.free;
}

export function isPro(status: SubscriptionStatus): boolean {
  return status === 'pro' || status === 'canceled';
}

/** Low-credit warning threshold for Pro and canceled users. */
export const LOW_CREDIT_THRESHOLD = 10;

// ---------------------------------------------------------------------------------------------
// Models

export type ModelKind = 'text' | 'image';

export type Model = {
  /** The id sent by the form and stored on results. */
  id: string;
  kind: ModelKind;
  /** Display name (a product name: the same in every language). */
  label: string;
  /** Credits per topic. */
  credits: number;
  proOnly: boolean;
  /** The provider's own model identifier (OpenRouter model, or Replicate `owner/name`). */
  providerModel: string;
};

export const models: readonly Model[] = [
  {
    id: 'openai/gpt-4o-mini-search-preview',
    kind: 'text',
    label: 'GPT-4o mini Search',
    credits: 1,
    proOnly: false,
    providerModel: 'openai/gpt-4o-mini-search-preview',
  },
  // The model templates saved without one fall back to: a model of its own, so a run started from
  // such a template (in the workspace or through the API) is accepted like any other.
  { id: 'openai/gpt-4o-mini', kind: 'text', label: 'GPT-4o mini', credits: 1, proOnly: true, providerModel: 'openai/gpt-4o-mini' },
  { id: 'openai/o4-mini-high', kind: 'text', label: 'o4-mini-high', credits: 2, proOnly: true, providerModel: 'openai/o4-mini-high' },
  {
    id: 'openai/gpt-4o-search-preview',
    kind: 'text',
    label: 'GPT-4o Search',
    credits: 2,
    proOnly: true,
    providerModel: 'openai/gpt-4o-search-preview',
  },
  {
    id: 'anthropic/claude-3.7-sonnet',
    kind: 'text',
    label: 'Claude 3.7 Sonnet',
    credits: 2,
    proOnly: true,
    providerModel: 'anthropic/claude-3.7-sonnet',
  },
  {
    id: 'google/gemini-2.5-flash-preview',
    kind: 'text',
    label: 'Gemini 2.5 Flash',
    credits: 1,
    proOnly: true,
    providerModel: 'google/gemini-2.5-flash-preview',
  },
  {
    id: 'deepseek/deepseek-chat-v3',
    kind: 'text',
    label: 'DeepSeek Chat v3',
    credits: 1,
    proOnly: true,
    providerModel: 'deepseek/deepseek-chat-v3-0324',
  },
  { id: 'perplexity/sonar', kind: 'text', label: 'Perplexity Sonar', credits: 1, proOnly: true, providerModel: 'perplexity/sonar' },
  // An image topic costs its model's credits whatever numOutputs is.
  {
    id: 'black-forest-labs/flux-schnell',
    kind: 'image',
    label: 'FLUX.1 [schnell]',
    credits: 1,
    proOnly: false,
    providerModel: 'black-forest-labs/flux-schnell',
  },
  { id: 'stable-diffusion-xl', kind: 'image', label: 'Stable Diffusion XL', credits: 1, proOnly: true, providerModel: 'stability-ai/sdxl' },
  { id: 'midjourney', kind: 'image', label: 'Midjourney', credits: 2, proOnly: true, providerModel: 'prompthero/openjourney' },
  { id: 'dall-e-3', kind: 'image', label: 'DALL·E 3', credits: 2, proOnly: true, providerModel: 'openai/dall-e-3' },
];

/** The models a Free account may use: the default text model and the default image model. */
export const DEFAULT_TEXT_MODEL = 'openai/gpt-4o-mini-search-preview';
export const DEFAULT_IMAGE_MODEL = 'black-forest-labs/flux-schnell';
/** Templates saved without a model fall back to this. */
export const TEMPLATE_DEFAULT_TEXT_MODEL = 'openai/gpt-4o-mini';
/** Credits added per post when `embedImage` is on. */
export const EMBED_IMAGE_CREDITS = 1;

/** The cheapest and dearest model, in credits per topic (the landing page's "1 to 2 credits"). */
export function modelCreditRange(): { min: number; max: number } {
  const credits = models.map((m) => m.credits);
  return { min: Math.min(...credits), max: Math.max(...credits) };
}

export function findModel(id: string | null | undefined): Model | undefined {
  return id ? models.find((m) => m.id === id) : undefined;
}

/** The ids of one kind's models, as a non-empty tuple (for a schema's enum). */
export function modelIds(kind: ModelKind): [string, ...string[]] {
  const [first, ...rest] = modelsOfKind(kind).map((m) => m.id);
  return [first!, ...rest];
}

export function modelsOfKind(kind: ModelKind): Model[] {
  return models.filter((m) => m.kind === kind);
}

export function canUseModel(status: SubscriptionStatus, model: Model): boolean {
  return !model.proOnly || isPro(status);
}

/** Credits for a run: topics × model credits, plus one per post for an embedded image. */
export function runCost(model: Model, topics: number, embedImage = false): number {
  const perItem = model.credits + (model.kind === 'text' && embedImage ? EMBED_IMAGE_CREDITS : 0);
  return topics * perItem;
}

/** The one-click fixes of a completed text result (its quality report says what each would fix). */
export const fixKinds = ['regenerate', 'expand', 'add_section'] as const;
export type FixKind = (typeof fixKinds)[number];

/** Credits of adding one missing section (an FAQ, a conclusion...): a short part of a post. */
export const ADD_SECTION_CREDITS = 1;

/**
 * Credits of a fix: regenerating or expanding a post costs what one post of its model costs (the
 * post's embedded image is kept, not made again, so no image credit); adding one missing section
 * costs ADD_SECTION_CREDITS. Charged only when the fix succeeds.
 */
export function fixCost(kind: FixKind, model: Model): number {
  return kind === 'add_section' ? ADD_SECTION_CREDITS : model.credits;
}

// ---------------------------------------------------------------------------------------------
// Generation options (values are stored as given; the locales translate them by key)

export const contentLanguages = [
  'English (US)',
  'English (UK)',
  'English (Australia)',
  'English (Canada)',
  'Afrikaans',
  'Albanian',
  'Arabic',
  'Armenian',
  'Azerbaijani',
  'Basque',
  'Belarusian',
  'Bengali',
  'Bosnian',
  'Bulgarian',
  'Catalan',
  'Chinese (Simplified)',
  'Chinese (Traditional)',
  'Croatian',
  'Czech',
  'Danish',
  'Dutch',
  'Estonian',
  'Filipino',
  'Finnish',
  'French',
  'Galician',
  'Georgian',
  'German',
  'Greek',
  'Gujarati',
  'Hebrew',
  'Hindi',
  'Hungarian',
  'Icelandic',
  'Indonesian',
  'Irish',
  'Italian',
  'Japanese',
  'Kannada',
  'Kazakh',
  'Korean',
  'Latvian',
  'Lithuanian',
  'Macedonian',
  'Malay',
  'Marathi',
  'Norwegian',
  'Persian',
  'Polish',
  'Portuguese',
  'Romanian',
  'Russian',
  'Serbian',
  'Slovak',
  'Slovenian',
  'Spanish',
  'Swedish',
  'Thai',
  'Vietnamese',
] as const;

export const tones = [
  'Neutral',
  'Professional',
  'Conversational',
  'Friendly',
  'Authoritative',
  'Enthusiastic',
  'Humorous',
  'Educational',
  'Technical',
] as const;
export const pointsOfView = ['First person', 'Second person', 'Third person'] as const;
export const articleTypes = [
  'General',
  'How-to Guide',
  'List Article',
  'Tutorial',
  'Review',
  'Comparison',
  'Opinion Piece',
  'Case Study',
  'News Article',
  'Educational',
] as const;
export const readingLevels = ['5th grade', '6th grade', '7th grade', '8th & 9th grade', '10th to 12th grade', 'College'] as const;
export const writingStyles = [
  'Standard',
  'Academic',
  'Journalistic',
  'Creative',
  'Persuasive',
  'Descriptive',
  'Technical',
  'Storytelling',
] as const;
/**
 * The original form's labels where they differ from the catalogue's values (the form's default
 * reading level is '8th & 9th grade, easily understood'; points of view 'First', 'Second',
 * 'Third'). Every request schema accepts them and reads them as the catalogue's value (seedValue).
 */
export const seedLabels: Readonly<Record<'readingLevel' | 'pointOfView', Readonly<Record<string, string>>>> = {
  readingLevel: { '8th & 9th grade, easily understood': '8th & 9th grade' },
  pointOfView: { First: 'First person', Second: 'Second person', Third: 'Third person' },
};

/** The catalogue's value for an original-form label of the field (anything else unchanged). */
export function seedValue(field: keyof typeof seedLabels, value: unknown): unknown {
  return typeof value === 'string' ? (seedLabels[field][value.trim()] ?? value) : value;
}
export const contentLengths = ['Short', 'Medium', 'Long'] as const;
/** maxTokens by content length ('Very Short' is in the token table only). */
export const maxTokensByLength: Readonly<Record<string, number>> = { 'Very Short': 420, Short: 850, Medium: 1700, Long: 3400 };
/** Approximate words by content length, for the prompt. */
export const wordsByLength: Readonly<Record<string, number>> = { 'Very Short': 300, Short: 600, Medium: 1200, Long: 2400 };
export const structureFlags = [
  'includeIntro',
  'includeOutro',
  'includeHeadings',
  'includeBulletPoints',
  'includeQA',
  'includeKeyTakeaways',
] as const;
export const aspectRatios = ['16:9', '4:3', '1:1', '3:2', '9:16', '3:4'] as const;
export const stylePresets = [
  'photographic',
  'digital-art',
  'comic-book',
  'fantasy-art',
  'isometric',
  'low-poly',
  'origami',
  'line-art',
  'cinematic',
  '3d-model',
  'pixel-art',
  'texture',
  'anime',
  'neon-punk',
] as const;
export const GUIDANCE = { min: 1, max: 20, step: 0.5, default: 7 } as const;
export const OUTPUTS = { min: 1, max: 4, default: 1 } as const;
export const TEMPERATURE = 0.7;

export type StructureFlag = (typeof structureFlags)[number];

export const textDefaults = {
  model: DEFAULT_TEXT_MODEL,
  language: 'English (US)',
  toneOfVoice: 'Neutral',
  pointOfView: 'Third person',
  articleType: 'General',
  readingLevel: '8th & 9th grade',
  contentLength: 'Medium',
  writingStyle: 'Standard',
  temperature: TEMPERATURE,
  includeIntro: true,
  includeOutro: true,
  includeHeadings: true,
  includeBulletPoints: true,
  includeQA: true,
  includeKeyTakeaways: true,
  embedImage: false,
} as const;

export const imageDefaults = {
  model: DEFAULT_IMAGE_MODEL,
  aspectRatio: '16:9',
  stylePreset: 'photographic',
  guidanceScale: GUIDANCE.default,
  numOutputs: OUTPUTS.default,
} as const;

export const settingsDefaults = {
  defaultTextModel: DEFAULT_TEXT_MODEL,
  defaultImageModel: DEFAULT_IMAGE_MODEL,
  darkMode: false,
  autoSave: true,
  aspectRatio: '1:1',
  stylePreset: 'photographic',
  guidanceScale: GUIDANCE.default,
  numOutputs: OUTPUTS.default,
} as const;

// ---------------------------------------------------------------------------------------------
// Bounds

export const MAX_TOPIC_LENGTH = 500;
export const DEFAULT_MAX_TOPICS_PER_RUN = 1000;
export const RESULTS_PAGE_SIZE = 20;
export const MAX_TEMPLATES_PER_USER = 100;
export const CSV_MAX_ROWS = 1000;
export const CSV_MAX_BYTES = 1024 * 1024;
export const MAX_TITLE_KEYWORDS = 50;
