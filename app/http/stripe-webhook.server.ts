import express, { type Request, type Response } from 'express';
import Stripe from 'stripe';
import { storeEvents } from '~/services/billing/stripe-events.server';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '~/runtime/db-unavailable.server';
import { loadEnv } from '~/runtime/env.server';
import { getLogger } from '~/runtime/logger.server';
import { singleton } from '~/runtime/singleton.server';
import { logUnavailable } from '~/http/unavailable.server';

// POST /webhooks/stripe, mounted by server.ts before Remix (which would read the body as a stream
// and cost ~1.7 ms a request). The raw bytes are verified against STRIPE_WEBHOOK_SECRET (a bad
// signature, or one dated more than 5 minutes away from now either way, is a 400 and nothing is
// stored); a verified event is stored once, with its job, before the 200. The job applies it
// (jobs/handlers/stripe-event.ts).

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
  // Stripe's check bounds only the age: a timestamp ahead of our clock would be accepted forever.
  if (signedAt(signature) > Date.now() / 1000 + TOLERANCE_SECONDS) return { status: 400, body: { error: 'Invalid signature' } };
  if (!event?.id || !event.type) return { status: 400, body: { error: 'Invalid event' } };
  const stored = await intake().store(event, raw.toString('utf8'));
  return { status: 200, body: stored ? { received: true } : { received: true, duplicate: true } };
}

/** The `t=` of a Stripe-Signature header (seconds); Infinity when missing or malformed. */
function signedAt(header: string): number {
  const t = header
    .split(',')
    .map((part) => part.trim())
    .find((part) => part.startsWith('t='));
  const seconds = t ? Number(t.slice(2)) : NaN;
  return Number.isFinite(seconds) ? seconds : Number.POSITIVE_INFINITY;
}

type Pending = { event: Stripe.Event; raw: string; resolve: (stored: boolean) => void; reject: (err: unknown) => void };

/**
 * Group commit: the events that arrive while a write is in flight are stored together by the next
 * one (one transaction, one multi-row insert, one job insert), so the intake keeps up with bursts
 * without answering before the rows are committed.
 */
function intake() {
  return singleton('stripe-webhook-intake', () => {
    let queue: Pending[] = [];
    let writing = 0;
    const MAX_WRITERS = 2;
    const MAX_BATCH = 500;
    const flush = async () => {
      if (writing >= MAX_WRITERS || queue.length === 0) return;
      writing++;
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      try {
        const stored = await storeEvents(batch.map((p) => ({ id: p.event.id, type: p.event.type, payload: p.raw })));
        const seen = new Set<string>();
        for (const p of batch) {
          // Two copies of one event in a batch: only the first counts as stored.
          p.resolve(stored.has(p.event.id) && !seen.has(p.event.id));
          seen.add(p.event.id);
        }
      } catch (err) {
        for (const p of batch) p.reject(err);
      } finally {
        writing--;
        void flush();
      }
    };
    return {
      store: (event: Stripe.Event, raw: string) =>
        new Promise<boolean>((resolve, reject) => {
          queue.push({ event, raw, resolve, reject });
          void flush();
        }),
    };
  });
}

const rawBody = express.raw({ type: () => true, limit: 1024 * 1024 });

/** The Express handler (server.ts: `app.post('/webhooks/stripe', ...stripeWebhookHandler)`). */
export const stripeWebhookHandler = [
  rawBody,
  async (req: Request, res: Response) => {
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const answer = await receiveStripeWebhook(raw, req.get('stripe-signature'));
      // Written directly (res.json would also hash the body for an ETag nobody reads).
      res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify(answer.body));
    } catch (err) {
      // Not stored: Stripe retries (with backoff) on anything but 2xx. Without a database that is an
      // outage (503, a warning), not a bug.
      if (isDatabaseUnavailable(err)) {
        logUnavailable(req, res, err);
        res
          .status(503)
          .set({ 'Retry-After': String(RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' })
          .json({ error: 'Not stored' });
        return;
      }
      getLogger().error({ requestId: res.locals.requestId as string | undefined, err }, 'stripe webhook intake failed');
      res.status(500).json({ error: 'Not stored' });
    }
  },
];
