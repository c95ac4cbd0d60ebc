import express, { type Request, type Response } from 'express';
import Stripe from 'stripe';
import { storeEvent } from '~/services/billing.server';
import { loadEnv } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';

// POST /webhooks/stripe, mounted by server.ts before Remix (which would read the body as a stream
// and cost ~1.7 ms a request). The raw bytes are verified against STRIPE_WEBHOOK_SECRET (a bad or
// older-than-5-minutes signature is a 400 and nothing is stored); a verified event is stored once,
// with its job, before the 200. The job applies it (jobs/handlers/stripe-event.ts).

const TOLERANCE_SECONDS = 300;

export type WebhookAnswer = { status: number; body: { received: true; duplicate?: boolean } | { error: string } };

export async function receiveStripeWebhook(raw: Buffer, signature: string | undefined): Promise<WebhookAnswer> {
  const secret = loadEnv().STRIPE_WEBHOOK_SECRET;
  if (!secret) return { status: 503, body: { error: 'Payment provider not configured (development mode)' } };
  if (!signature) return { status: 400, body: { error: 'Missing Stripe-Signature' } };
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(raw, signature, secret, TOLERANCE_SECONDS);
  } catch {
    return { status: 400, body: { error: 'Invalid signature' } };
  }
  if (!event?.id || !event.type) return { status: 400, body: { error: 'Invalid event' } };
  const stored = await storeEvent(event, event);
  return { status: 200, body: stored ? { received: true } : { received: true, duplicate: true } };
}

const rawBody = express.raw({ type: () => true, limit: 1024 * 1024 });

/** The Express handler (server.ts: `app.post('/webhooks/stripe', ...stripeWebhookHandler)`). */
export const stripeWebhookHandler = [
  rawBody,
  async (req: Request, res: Response) => {
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const answer = await receiveStripeWebhook(raw, req.get('stripe-signature'));
      res.status(answer.status).set('Cache-Control', 'no-store').json(answer.body);
    } catch (err) {
      // Not stored: Stripe retries (with backoff) on anything but 2xx.
      getLogger().error({ err: (err as Error).message }, 'stripe webhook intake failed');
      res.status(500).json({ error: 'Not stored' });
    }
  },
];
