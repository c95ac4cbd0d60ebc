import { z } from 'zod';
import type { Translate } from './auth-schemas';
import { OUTBOUND_FAILURES } from './outbound-failures';
import { httpUrl } from './wordpress-schemas';

// The events an account's webhook endpoints can choose, the endpoint form's rules (the same on the
// server and in the browser; messages from the `developer` namespace), and why a delivery failed.

export const webhookEventTypes = [
  'run.completed',
  'result.completed',
  'result.failed',
  'result.flagged',
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

/**
 * Why a delivery attempt failed, stored as a code with its parameters and shown in the reader's
 * language: the outbound guard's failures, an answer outside 2xx (`status`), an endpoint turned
 * off before the attempt, or a fault of ours.
 */
export const WEBHOOK_DELIVERY_FAILURES = [...OUTBOUND_FAILURES, 'http_status', 'endpoint_disabled', 'internal'] as const;
export type WebhookDeliveryFailure = (typeof WEBHOOK_DELIVERY_FAILURES)[number];

const outboundFailures = new Set<string>(OUTBOUND_FAILURES);
const deliveryFailures = new Set<string>(WEBHOOK_DELIVERY_FAILURES);

/** The `developer` key of a stored failure code; none (a row stored before codes) or an unknown one reads "Delivery failed". */
export function deliveryFailureKey(code: string | null | undefined): string {
  if (!code || !deliveryFailures.has(code)) return 'developer:webhooks.failures.unknown';
  return outboundFailures.has(code) ? `developer:outbound.${code}` : `developer:webhooks.failures.${code}`;
}

/** A delivery's failure in the reader's language. */
export function deliveryFailureText(t: Translate, code: string | null | undefined, params?: Record<string, unknown> | null): string {
  return t(deliveryFailureKey(code), params ?? {});
}
