import { z } from 'zod';
import type { Translate } from './auth-schemas';
import { httpUrl } from './wordpress-schemas';

// The events an account's webhook endpoints can choose, and the endpoint form's rules
// (the same on the server and in the browser; messages from the `developer` namespace).

export const webhookEventTypes = [
  'run.completed',
  'result.completed',
  'result.failed',
  'publication.published',
  'publication.failed',
  'credits.low',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** The type of the event the "Send test event" button sends (to the one endpoint, whatever it chose). */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WEBHOOK_URL_MAX = 2048;
/** Endpoints one account may keep. */
export const MAX_WEBHOOK_ENDPOINTS = 10;

export function webhookEndpointSchema(t: Translate) {
  return z.object({
    url: httpUrl(t('developer:validation.url')).refine((v) => v.length <= WEBHOOK_URL_MAX, t('developer:validation.url')),
    events: z
      .array(z.enum(webhookEventTypes), { required_error: t('developer:validation.events') })
      .min(1, t('developer:validation.events'))
      .transform((list) => [...new Set(list)]),
  });
}
