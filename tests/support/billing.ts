import { expect } from 'vitest';
import { sql } from '../../db/client';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { reconcile } from '../../app/services/ledger-reconcile.server';
import { createSession } from '../../app/services/sessions.server';
import { startWorkers } from '../../jobs/worker';
import { startBoss } from '../../app/queue/boss';
import { startTestApp, TestClient, type TestApp } from './app-server';
import { createUser } from './ledger';
import { startStripeServer, stripeEnv, type StripeEvent, type TestStripe } from './stripe-server';

// Billing test helpers over the real app, the worker and the Stripe test server.

/** For one test file: a Stripe test server, the app configured for it and its webhooks, the worker. */
export async function startBillingApp(): Promise<{ stripe: TestStripe; app: TestApp }> {
  const stripe = await startStripeServer();
  Object.assign(process.env, stripeEnv(stripe));
  const app = await startTestApp();
  stripe.setWebhookUrl(`${app.url}/webhooks/stripe`);
  // The worker's loops for Stripe events are noted as they start, so settled() can wake them.
  const boss = await startBoss('worker');
  const work = boss.work.bind(boss) as (name: string, ...rest: unknown[]) => Promise<string>;
  stripeEventWorkers.length = 0;
  boss.work = (async (name: string, ...rest: unknown[]) => {
    const id = await work(name, ...rest);
    if (name === 'stripe-event') stripeEventWorkers.push(id);
    return id;
  }) as typeof boss.work;
  await startWorkers();
  boss.work = work as typeof boss.work;
  return { stripe, app };
}

const stripeEventWorkers: string[] = [];

export async function closeBillingApp(app: TestApp | undefined, stripe: TestStripe | undefined) {
  await app?.close();
  await stripe?.close();
}

export type BillingUser = { user: { id: string; email: string }; client: TestClient };

/** A signed-in user with the signup grant. */
export async function newBillingUser(appUrl: string, label: string): Promise<BillingUser> {
  const user = await createUser(sql, label);
  await grantSignupCredits(user.id, sql);
  const client = new TestClient(appUrl, { 'accept-language': 'en' });
  const { setCookie } = await createSession(user.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  return { user, client };
}

/**
 * Waits until every stored event has been applied by the worker. An idle worker looks for new jobs
 * every 0.5 s; the wait wakes it instead, as a busier worker would find the job at once: the
 * property tests settle hundreds of times, and those naps were most of their run time.
 */
export async function settled(timeout = 30_000) {
  const deadline = Date.now() + timeout;
  const boss = stripeEventWorkers.length ? await startBoss('worker') : null;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM billing_events WHERE processed_at IS NULL`;
    if (row!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} events not processed`);
    for (const id of stripeEventWorkers) boss?.notifyWorker(id);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function expectVerified(stripe: TestStripe) {
  const report = await verifyLedger();
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
  await expectReconciled(stripe);
}

/**
 * Every Stripe payment and refund of this file's Stripe server is booked once, or flagged. Only its own: lines of anything else in the database (another Stripe server's objects) are not its business.
 */
export async function expectReconciled(stripe: TestStripe) {
  const reconciled = await reconcile();
  const ours = reconciled.lines.filter((l) => stripe.objects.has(l.stripeId));
  expect(ours.filter((l) => l.status === 'unmatched' || l.status === 'double')).toEqual([]);
}

export async function startCheckout(client: TestClient, priceId: string) {
  const res = await client.postJson('/api/subscription/checkout', { priceId, language: 'en' });
  const body = (await res.json()) as { url?: string; sessionId?: string; error?: string };
  expect(res.status, body.error).toBe(200);
  return body.sessionId!;
}

/** Runs `act` with delivery held: returns the events it made, none delivered. */
export async function held(stripe: TestStripe, act: () => Promise<unknown>): Promise<StripeEvent[]> {
  stripe.setAutoDeliver(false);
  const before = stripe.events.length;
  try {
    await act();
  } finally {
    stripe.setAutoDeliver(true);
  }
  return stripe.events.slice(before);
}

/** Delivers events one by one, each applied before the next. */
export async function deliverInOrder(stripe: TestStripe, events: StripeEvent[]) {
  for (const e of events) {
    expect((await stripe.deliver(e)).status).toBe(200);
    await settled();
  }
}
