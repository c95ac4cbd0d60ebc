import { z } from 'zod';
import type PgBoss from 'pg-boss';

// Every queue of the app: its name, the payload schema, and its retry/expiry policy.
export const queues = {
  'send-email': {
    payload: z.object({
      messageKey: z.string().min(1),
      to: z.string().email(),
      template: z.enum(['set-password', 'reset-password']),
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
    work: { batchSize: 5, pollingIntervalSeconds: 1 },
  },
} as const;

export type QueueName = keyof typeof queues;
export type QueuePayload<Q extends QueueName> = z.infer<(typeof queues)[Q]['payload']>;
