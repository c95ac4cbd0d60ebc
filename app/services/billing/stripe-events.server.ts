import type Stripe from 'stripe';
import { enqueueMany } from '~/queue/boss';
import { sql, transaction, type Db } from '../../../db/client';
import { applyPaidInvoice, fulfilCheckout } from './fulfilment.server';
import { fromUnix, ignored, type Outcome } from './outcome.server';
import { refundCharge } from './refunds.server';
import { applySubscriptionState, endSubscription } from './subscriptions.server';

// The webhook inbox

/**
 * Stores verified events, each once, with their jobs, in one transaction (the intake groups the
 * events that arrive together). Returns the ids stored now (a repeat is not among them).
 */
export async function storeEvents(events: { id: string; type: string; payload: string }[], db: Db = sql): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  return transaction(db, async (tx) => {
    // The raw JSON text goes to Postgres as is (parsed once there, not re-serialised here).
    const inserted = await tx<{ id: string }[]>`
      INSERT INTO billing_events (id, type, payload)
      SELECT x.id, x.type, x.payload::jsonb
      FROM unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.payload)}::text[]) AS x(id, type, payload)
      ON CONFLICT (id) DO NOTHING RETURNING id`;
    await enqueueMany(
      'stripe-event',
      inserted.map((r) => ({ payload: { eventId: r.id } })),
      tx,
    );
    return new Set(inserted.map((r) => r.id));
  });
}

/** Stores one verified event once, with its job; false for a repeat. */
export async function storeEvent(event: { id: string; type: string }, payload: string, db: Db = sql): Promise<boolean> {
  return (await storeEvents([{ id: event.id, type: event.type, payload }], db)).has(event.id);
}

export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'charge.refunded',
] as const;

/** Applies one stored event (the job). Safe to run twice: every booking is keyed. */
export async function processEvent(eventId: string, db: Db = sql): Promise<Outcome | null> {
  const [row] = await db<{ type: string; payload: Stripe.Event; processedAt: Date | null }[]>`
    SELECT type, payload, processed_at AS "processedAt" FROM billing_events WHERE id = ${eventId}`;
  if (!row) return null;
  if (row.processedAt) return null;
  await db`UPDATE billing_events SET attempts = attempts + 1 WHERE id = ${eventId}`;
  const object = row.payload?.data?.object as { id?: unknown } | undefined;
  const at = fromUnix(row.payload?.created) ?? new Date();
  let result: Outcome;
  try {
    result =
      object && typeof object.id === 'string' ? await applyEvent(row.type, object, at, eventId, db) : ignored('event without an object');
  } catch (err) {
    // Left unprocessed for the job's retry; the reason is kept for whoever looks.
    await db`UPDATE billing_events SET detail = ${String((err as Error).message ?? err).slice(0, 500)} WHERE id = ${eventId}`;
    throw err;
  }
  await db`UPDATE billing_events SET processed_at = now(), outcome = ${result.outcome}, detail = ${result.detail ?? null}
    WHERE id = ${eventId} AND processed_at IS NULL`;
  return result;
}

async function applyEvent(type: string, object: unknown, at: Date, eventId: string, db: Db): Promise<Outcome> {
  let result: Outcome;
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      result = await fulfilCheckout(object as Stripe.Checkout.Session, eventId, db);
      break;
    case 'invoice.paid':
      result = await applyPaidInvoice(object as Stripe.Invoice, eventId, db);
      break;
    case 'customer.subscription.updated':
      result = await applySubscriptionState(object as Stripe.Subscription, at, eventId, db);
      break;
    case 'customer.subscription.deleted':
      result = await endSubscription(object as Stripe.Subscription, eventId, db);
      break;
    case 'charge.refunded':
      result = await refundCharge(object as Stripe.Charge, db);
      break;
    default:
      result = ignored('event type not handled');
  }
  return result;
}
