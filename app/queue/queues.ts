import { z } from 'zod';
import type PgBoss from 'pg-boss';

// Every queue of the app: its name, the payload schema, and its retry/expiry policy.
export const queues = {
  'send-email': {
    payload: z.object({
      messageKey: z.string().min(1),
      to: z.string().email(),
      template: z.enum(['set-password', 'reset-password', 'webhook-disabled']),
      language: z.enum(['en', 'zh-HK']),
      params: z.record(z.string()),
    }),
    options: {
      retryLimit: 8,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionDays: 7,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    // Two fetch loops of 16 (each sent 8 at a time, see jobs/handlers/send-email.ts), polling every
    // 0.5 s when idle: a password reset (priority 10) overtakes a queued burst of sign-ups.
    work: { batchSize: 16, pollingIntervalSeconds: 0.5, workers: 2 },
  },
  // Hourly: monthly credit resets that are due (the lazy check on a request covers a missed run).
  'ledger-monthly-reset': {
    payload: z.object({}).passthrough(),
    options: { retryLimit: 3, retryDelay: 60, expireInSeconds: 30 * 60, retentionDays: 7 } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 1, pollingIntervalSeconds: 30 },
    cron: '7 * * * *',
  },
  // Every 5 minutes: void credit holds whose expiry has passed (owners set and extend it).
  'ledger-sweep-holds': {
    payload: z.object({}).passthrough(),
    options: { retryLimit: 2, retryDelay: 30, expireInSeconds: 10 * 60, retentionDays: 2 } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 1, pollingIntervalSeconds: 30 },
    cron: '*/5 * * * *',
  },
  // Hourly: delete expired sessions and stale abuse-limit counters.
  'maintenance-purge': {
    payload: z.object({}).passthrough(),
    options: { retryLimit: 2, retryDelay: 60, expireInSeconds: 10 * 60, retentionDays: 2 } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 1, pollingIntervalSeconds: 30 },
    cron: '23 * * * *',
  },
  // Bulk generation: one job per result item. Run by the hand-written fetch/complete loop of
  // jobs/generation-loop.ts (not work()): GENERATION_CONCURRENCY in flight per process, refilled as
  // soon as a slot frees, GENERATION_CONCURRENCY_PER_USER per user across processes. Provider retries
  // happen inside the item; pg-boss's own retry and expiry only back up a crash (the loop also revives
  // items whose worker lease expired).
  'generate-item': {
    payload: z.object({ resultId: z.string().uuid(), userId: z.string().uuid(), attempt: z.number().int().min(1) }),
    options: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 * 60, retentionDays: 2 } satisfies Omit<
      PgBoss.Queue,
      'name'
    >,
    work: { batchSize: 20, pollingIntervalSeconds: 1 },
  },
  // A password reset request, taken after the answer: the request does the same work (one insert)
  // whether or not the address has an account, so its timing tells nothing.
  'password-reset-request': {
    payload: z.object({ email: z.string().email().max(254), language: z.enum(['en', 'zh-HK']) }),
    options: { retryLimit: 3, retryDelay: 5, expireInSeconds: 60, retentionDays: 1 } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 5, pollingIntervalSeconds: 1 },
  },
  // One per stored Stripe webhook event (billing_events): applies it to subscriptions and the ledger.
  'stripe-event': {
    payload: z.object({ eventId: z.string().min(1).max(255) }),
    options: {
      retryLimit: 10,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionDays: 7,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 20, pollingIntervalSeconds: 0.5 },
  },
  // A second Pro subscription: canceled at Stripe and its payments refunded; enqueued with
  // the row that marks it duplicate (billing_subscriptions.duplicate_of).
  'billing-duplicate': {
    payload: z.object({ subscriptionId: z.string().min(1).max(255) }),
    options: {
      retryLimit: 10,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionDays: 14,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 5, pollingIntervalSeconds: 1 },
  },
  // A refund's shortfall (credits already spent) taken back as credits come free; enqueued with its
  // row (billing_shortfall_recoveries). Retries back off from an hour and double: six attempts over
  // about a day and a half, then it is left to a person.
  'billing-shortfall': {
    payload: z.object({ ref: z.string().min(1).max(500) }),
    options: {
      retryLimit: 5,
      retryDelay: 3600,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionDays: 14,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 1, pollingIntervalSeconds: 5 },
  },
  // WordPress publishing, now or at publish_at (startAfter). Retries back off from 30 s and double:
  // twelve retries span about 34 hours before an item ends failed with the site's message. The same
  // queue carries the late internal links of a published post (`linkFixups`: its publication id) and
  // the keeping of a scheduled post's place in WordPress's own schedule (`mirror`: its publication id).
  'wordpress-publish': {
    payload: z.union([
      z.object({ publicationId: z.string().uuid() }),
      z.object({ linkFixups: z.string().uuid() }),
      z.object({ mirror: z.string().uuid() }),
    ]),
    options: {
      retryLimit: 12,
      retryDelay: 30,
      retryBackoff: true,
      expireInSeconds: 10 * 60,
      retentionDays: 14,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    // A work() loop waits for its whole batch: four loops of two, so one slow site holds back at
    // most one other publication while publish-now waits for its own.
    work: { batchSize: 2, pollingIntervalSeconds: 1, includeMetadata: true, workers: 4 },
  },
  // One attempt of one webhook delivery. The backoff between attempts is ours
  // (webhooks.server.ts: WEBHOOK_RETRY_BASE_SECONDS doubling, for WEBHOOK_RETRY_WINDOW_HOURS): a failed
  // attempt enqueues the next one with startAfter, in the transaction that records it. pg-boss's own
  // retry only backs up a crashed attempt.
  'webhook-deliver': {
    payload: z.object({ deliveryId: z.string().uuid(), attempt: z.number().int().min(1) }),
    options: {
      retryLimit: 3,
      retryDelay: 30,
      retryBackoff: true,
      expireInSeconds: 120,
      retentionDays: 3,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 10, pollingIntervalSeconds: 0.5 },
  },
  // Internal links: links a text run's posts once its last item has ended, as the
  // run's settings say (internal-links.server.ts). Enqueued by the item that ends the run, with the
  // run id as singleton key under the stately policy: at most one waiting and one running per run,
  // so items ending together enqueue it once. Linking is idempotent (it replaces the proposals).
  'link-run': {
    payload: z.object({ userId: z.string().uuid(), runId: z.string().uuid() }),
    options: {
      policy: 'stately',
      retryLimit: 5,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 10 * 60,
      retentionDays: 3,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 2, pollingIntervalSeconds: 1 },
  },
  // Deletes the objects of images whose rows are gone (image_object_deletions): enqueued with a
  // deletion of results, and every 15 minutes for rows that went another way (an account deleted).
  // A storage failure fails the job: retried from 30 s, doubling, for about a day; the rows wait.
  'image-objects-delete': {
    payload: z.object({}).passthrough(),
    options: {
      retryLimit: 12,
      retryDelay: 30,
      retryBackoff: true,
      expireInSeconds: 10 * 60,
      retentionDays: 2,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    work: { batchSize: 1, pollingIntervalSeconds: 1 },
    cron: '*/15 * * * *',
  },
  // One-click fixes of a completed text post (regenerate, expand, add a section): one job per fix,
  // enqueued with its row and its credit hold (services/fixes). The job books its end once (a
  // second delivery finds the fix no longer processing); a failed attempt of ours is retried.
  'result-fix': {
    payload: z.object({ fixId: z.string().uuid(), resultId: z.string().uuid(), userId: z.string().uuid() }),
    options: {
      retryLimit: 3,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: 30 * 60,
      retentionDays: 3,
    } satisfies Omit<PgBoss.Queue, 'name'>,
    // A work() loop waits for its whole batch: three loops of one, so a slow provider answer holds
    // back no other fix.
    work: { batchSize: 1, pollingIntervalSeconds: 1, workers: 3 },
  },
} as const;

export type QueueName = keyof typeof queues;
export type QueuePayload<Q extends QueueName> = z.infer<(typeof queues)[Q]['payload']>;
