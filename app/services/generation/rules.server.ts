import { sql, type Db } from '../../../db/client';
import { canUseModel, DEFAULT_IMAGE_MODEL, DEFAULT_TEXT_MODEL, findModel, type Model, type SubscriptionStatus } from '~/catalogue';
import { env } from '~/runtime/env.server';
import { AppError, type ErrorParams } from '~/utils/app-error';

// The rules an item's life shares: the queue and its wake-up channel, the refusals, the holds'
// expiries and who may use which model. Every step of the folder reads them here, and so do the
// results and link services (refusals, ids), so none of them needs another step's module for a
// constant.

export const GENERATE_QUEUE = 'generate-item';
/** NOTIFY channel that wakes the generation workers of every process. */
export const WAKE_CHANNEL = 'postforge_generation';
/** The payload on WAKE_CHANNEL after a cancel: workers drop the canceled items they keep next in line. */
export const CANCELED_SIGNAL = 'canceled';

export const GENERATION_ERROR_CODES = [
  'insufficient_credits',
  'pro_only',
  'no_api_key',
  'too_many_topics',
  'invalid',
  'not_found',
  'not_retryable',
  'not_editable',
  'no_content',
  'not_planned',
  'not_fixable',
  'fix_running',
  'result_changed',
  'cost_changed',
] as const;
export type GenerationErrorCode = (typeof GENERATION_ERROR_CODES)[number];

/**
 * A refusal of the service: `key` is the message's key in the `generation` namespace and `params`
 * its interpolation values; `message` is the English text. Its HTTP status is the edge's business
 * (app/http/errors.server.ts).
 */
export class GenerationError extends AppError<'generation', GenerationErrorCode> {
  constructor(code: GenerationErrorCode, key: string, message: string, params: ErrorParams = {}) {
    super('generation', code, key, message, params);
    this.name = 'GenerationError';
  }
}

export const errors = {
  insufficientCredits: () =>
    new GenerationError('insufficient_credits', 'errors.insufficientCredits', 'Insufficient credits. Please upgrade your plan.'),
  proOnly: (model: Model) => {
    const models = [DEFAULT_TEXT_MODEL, DEFAULT_IMAGE_MODEL].map((id) => findModel(id)!.label).join(', ');
    return new GenerationError('pro_only', 'errors.proOnly', `Free users can only use ${models}. Upgrade to Pro to use ${model.label}.`, {
      models,
      model: model.label,
    });
  },
  noApiKey: (kind: 'text' | 'image') =>
    kind === 'text'
      ? new GenerationError('no_api_key', 'errors.noTextApiKey', 'Failed to start text generation. Please check your API keys.')
      : new GenerationError('no_api_key', 'errors.noImageApiKey', 'Failed to start image generation. Please check your API keys.'),
  tooManyTopics: (max: number) =>
    new GenerationError('too_many_topics', 'errors.tooManyTopics', `Too many topics: at most ${max} per run.`, { max }),
  invalid: (message: string) => new GenerationError('invalid', 'errors.startFailed', message),
  notFound: (what: 'result' | 'job' | 'image' = 'result') =>
    new GenerationError(
      'not_found',
      what === 'job' ? 'errors.jobNotFound' : what === 'image' ? 'errors.imageNotFound' : 'errors.notFound',
      what === 'job' ? 'Job not found.' : what === 'image' ? 'Image not found.' : 'Result not found.',
    ),
  notRetryable: () => new GenerationError('not_retryable', 'errors.notRetryable', 'Only failed or canceled results can be retried.'),
  notEditable: () => new GenerationError('not_editable', 'errors.notEditable', 'Only completed text results can be edited.'),
  notPlanned: () =>
    new GenerationError('not_planned', 'errors.notPlanned', 'Only a planned post can be edited, re-planned, dropped or written.'),
  notFixable: () =>
    new GenerationError(
      'not_fixable',
      'errors.notFixable',
      'This fix is not offered for this result: its quality report shows nothing it would fix.',
    ),
  fixRunning: () => new GenerationError('fix_running', 'errors.fixRunning', 'A fix of this post is already running.'),
  resultChanged: () =>
    new GenerationError('result_changed', 'errors.resultChanged', 'The post changed since this fix was offered: look at it again.'),
  costChanged: (credits: number) =>
    new GenerationError('cost_changed', 'errors.costChanged', `This fix now costs ${credits} credits: confirm again.`, { credits }),
  noContent: (key = 'errors.noContent', message = 'No content to download.') => new GenerationError('no_content', key, message),
};

/** The settings of the generation processes (the env contract, README "Generation"). */
export function generationConfig() {
  return {
    concurrency: env.GENERATION_CONCURRENCY,
    perUser: env.GENERATION_CONCURRENCY_PER_USER,
    maxTopics: env.MAX_TOPICS_PER_RUN,
    leaseSeconds: env.GENERATION_LEASE_SECONDS,
  };
}

// ---------------------------------------------------------------------------------------------
// Holds and the sweeper. Every hold is reserved with its own expiry (long enough for the run to be
// worked through), and a worker moves it on with the item's lease while it works (ledger extendHolds).
// The ledger's sweeper voids only holds past their expiry, so it never voids the hold of an item
// still queued or being worked on; a hold it did void (the work was abandoned too long) means the
// item ends failed, uncharged (see finish.server.ts).

/** How long a new hold of queued work is kept before the sweeper may void it. */
export function holdExpiry(items: number, now = Date.now()): Date {
  const { concurrency, perUser } = generationConfig();
  const rounds = Math.ceil(items / Math.max(1, Math.min(concurrency, perUser)));
  // Generous: every round may take the provider's timeout, plus a day of queueing.
  return new Date(now + (rounds * env.GENERATION_PROVIDER_TIMEOUT_SECONDS + 24 * 3600) * 1000);
}

/** A leased item's hold lives at least this long past now (two leases: a missed heartbeat is fine). */
export function leaseHoldExpiry(leaseSeconds: number, now = Date.now()): Date {
  return new Date(now + 2 * leaseSeconds * 1000);
}

type UserPlan = { status: SubscriptionStatus };

export async function userPlan(userId: string, db: Db): Promise<UserPlan> {
  const [row] = await db<{ status: SubscriptionStatus }[]>`SELECT subscription_status AS status FROM users WHERE id = ${userId}`;
  if (!row) throw errors.notFound('job');
  return row;
}

/** Refuses a model the user's plan does not allow ('Free users can only use ...'). */
export async function checkModelAllowed(userId: string, modelId: string, db: Db = sql): Promise<Model> {
  const model = findModel(modelId);
  if (!model) throw errors.invalid('Please select a model');
  const { status } = await userPlan(userId, db);
  if (!canUseModel(status, model)) throw errors.proOnly(model);
  return model;
}

/** True when id is a UUID (ids from a URL are checked before they reach a query). */
export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}
