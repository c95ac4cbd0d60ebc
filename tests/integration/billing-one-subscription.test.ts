import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { entriesOf, getCreditSummary, grantSignupCredits } from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { reconcile } from '../../app/services/ledger-reconcile.server';
import { attemptDuplicateRefund } from '../../app/services/billing/duplicates.server';
import { createSession } from '../../app/services/sessions.server';
import { getStripe } from '../../app/services/stripe.server';
import { TestClient, type TestApp } from '../support/app-server';
import { closeBillingApp, expectReconciled, startBillingApp } from '../support/billing';
import { createUser } from '../support/ledger';
import type { StripeEvent, TestStripe } from '../support/stripe-server';

// One Pro subscription per user. One open Pro Checkout at a time (a second tab or a
// racing request gets the open session), and a second subscription that still arrives (the
// dashboard, sessions opened elsewhere, events racing) is canceled and refunded at the Stripe test
// server, flagged for finance once, grants nothing, and is shown on the subscription page.

let stripe: TestStripe;
let app: TestApp;

beforeAll(async () => ({ stripe, app } = await startBillingApp()));
afterAll(() => closeBillingApp(app, stripe));

async function newUser(label: string) {
  const user = await createUser(sql, label);
  await grantSignupCredits(user.id, sql);
  const client = new TestClient(app.url, { 'accept-language': 'en' });
  const { setCookie } = await createSession(user.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  return { user, client };
}

/** Until every stored event is applied and every duplicate is canceled and refunded. */
async function settled(timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const [row] = await sql<{ events: number; duplicates: number }[]>`
      SELECT (SELECT count(*)::int FROM billing_events WHERE processed_at IS NULL) AS events,
        (SELECT count(*)::int FROM billing_subscriptions WHERE duplicate_of IS NOT NULL AND duplicate_resolved_at IS NULL
          AND duplicate_refund_failed_at IS NULL AND duplicate_refund_last_error IS NULL) AS duplicates`;
    if (row!.events === 0 && row!.duplicates === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.events} events, ${row!.duplicates} duplicates not settled`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function verified() {
  const report = await verifyLedger();
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
  // Every payment booked once; a duplicate's invoice and refund are flagged, not mismatches.
  await expectReconciled(stripe);
}

const checkout = async (client: TestClient, language = 'en') => {
  const res = await client.postJson('/api/subscription/checkout', { priceId: stripe.prices.pro, language });
  return { status: res.status, body: (await res.json()) as { url?: string; sessionId?: string; error?: string } };
};

const sessionsOf = (userId: string) =>
  [...stripe.objects.values()].filter((o) => o.object === 'checkout.session' && o.client_reference_id === userId);
const subscriptionsOf = (customer: string) =>
  [...stripe.objects.values()].filter((o) => o.object === 'subscription' && o.customer === customer);
const grantsOf = async (userId: string) => (await entriesOf(userId)).filter((e) => e.kind === 'monthly_grant').map((e) => e.amount);
const statusOf = async (userId: string) =>
  (await sql<{ s: string }[]>`SELECT subscription_status AS s FROM users WHERE id = ${userId}`)[0]!.s;
const customerOf = async (userId: string) =>
  (await sql<{ id: string }[]>`SELECT stripe_customer_id AS id FROM billing_customers WHERE user_id = ${userId}`)[0]!.id;
const flagsOf = (userId: string) =>
  sql<
    { kind: string; detail: Record<string, unknown> }[]
  >`SELECT kind, detail FROM billing_finance_flags WHERE user_id = ${userId} ORDER BY id`;

/** A subscription Checkout Session opened at Stripe without the app (an old tab, another integration). */
async function sessionOutsideTheApp(userId: string, customer: string) {
  return getStripe().checkout.sessions.create({
    mode: 'subscription',
    customer,
    client_reference_id: userId,
    line_items: [{ price: stripe.prices.pro, quantity: 1 }],
    subscription_data: { metadata: { userId } },
    success_url: 'http://localhost:3999/subscription?success=true&session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://localhost:3999/subscription?canceled=true',
  });
}

describe('one open Pro checkout per user', () => {
  it('two tabs racing (8 concurrent requests) get one session; a later tab gets it again', async () => {
    const { user, client } = await newUser('one-race');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => checkout(client, i % 2 ? 'zh-HK' : 'en')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const ids = new Set(answers.map((a) => a.body.sessionId));
    expect(ids.size).toBe(1);
    expect(new Set(answers.map((a) => a.body.url)).size).toBe(1);
    expect(sessionsOf(user.id)).toHaveLength(1);
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM billing_checkouts WHERE user_id = ${user.id}`;
    expect(row!.n).toBe(1);
    // The user came back from Stripe's page with Cancel and clicks Subscribe again: the same session.
    const again = await checkout(client);
    expect(again.body.sessionId).toBe([...ids][0]);
    // Through the page's form (no JavaScript) too: the hop to Stripe names the same session.
    const form = await client.postForm('/subscription', { intent: 'checkout', priceId: stripe.prices.pro });
    expect(form.status).toBe(303);
    expect(decodeURIComponent(form.headers.get('location') ?? '')).toContain(`/pay/${[...ids][0]}`);
    expect(sessionsOf(user.id)).toHaveLength(1);
  });

  it('an expired session gives way to a new one; a paid one (webhook late) makes the next request "already subscribed"', async () => {
    const { user, client } = await newUser('one-expired');
    const first = await checkout(client);
    await getStripe().checkout.sessions.expire(first.body.sessionId!);
    const second = await checkout(client);
    expect(second.status).toBe(200);
    expect(second.body.sessionId).not.toBe(first.body.sessionId);
    expect(sessionsOf(user.id)).toHaveLength(2);

    stripe.setAutoDeliver(false);
    try {
      await stripe.pay(second.body.sessionId!);
      // No webhook yet: the claimed session reads "complete", so it is fulfilled here and no new one opens.
      const third = await checkout(client);
      expect(third.status).toBe(409);
      expect(third.body.error).toBe('You are already subscribed to Pro.');
      expect(await statusOf(user.id)).toBe('pro');
      expect(sessionsOf(user.id)).toHaveLength(2);
    } finally {
      stripe.setAutoDeliver(true);
    }
    // The late events book the period once.
    const mine = stripe.events.filter((e) => JSON.stringify(e.data.object).includes(user.id));
    await Promise.all(mine.map((e) => stripe.deliver(e)));
    await settled();
    expect(await grantsOf(user.id)).toEqual([5, 45]);
    await verified();
  });
});

describe('a second subscription that still arrives', () => {
  it('from the dashboard: canceled and refunded at Stripe, flagged once, nothing granted, shown on the page', async () => {
    const { user, client } = await newUser('one-dash');
    const { body } = await checkout(client);
    await stripe.pay(body.sessionId!);
    await settled();
    const customer = await customerOf(user.id);
    const [kept] = subscriptionsOf(customer);
    expect(await grantsOf(user.id)).toEqual([5, 45]);

    const extra = await stripe.subscribe(customer, { userId: user.id });
    await settled();

    // At Stripe: the extra one canceled, its $15 refunded; the first one untouched.
    expect(stripe.objects.get(extra.id)!.status).toBe('canceled');
    expect(stripe.objects.get(kept!.id)!.status).toBe('active');
    const extraInvoice = [...stripe.objects.values()].find((o) => o.object === 'invoice' && JSON.stringify(o.parent).includes(extra.id))!;
    const charge = stripe.objects.get(String(extraInvoice.charge))!;
    expect(charge).toMatchObject({ refunded: true, amount_refunded: 1500 });
    const refunds = [...stripe.objects.values()].filter((o) => o.object === 'refund' && o.charge === charge.id);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ reason: 'duplicate', amount: 1500 });

    // Here: Pro once, 45 credits once, one finance flag with the refund, the refund's own event ignored.
    expect(await statusOf(user.id)).toBe('pro');
    expect(await grantsOf(user.id)).toEqual([5, 45]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45 });
    const flags = await flagsOf(user.id);
    expect(flags.map((f) => f.kind)).toEqual(['duplicate_subscription']);
    expect(flags[0]!.detail).toMatchObject({
      subscription: extra.id,
      keptSubscription: kept!.id,
      canceled: true,
      refundedCents: 1500,
      refunds: [refunds[0]!.id],
    });
    const [refundEvent] = await sql<{ outcome: string; detail: string }[]>`
      SELECT outcome, detail FROM billing_events WHERE type = 'charge.refunded' AND payload->'data'->'object'->>'id' = ${charge.id}`;
    expect(refundEvent).toMatchObject({ outcome: 'ignored' });
    expect(refundEvent!.detail).toContain('duplicate');
    // Reconcile names the account on every line of the extra subscription, booked or not, and
    // labels its flag once.
    const report = await reconcile();
    const extraLines = report.lines.filter(
      (l) => l.stripeId === extra.id || l.stripeId === extraInvoice.id || l.stripeId === charge.id || l.stripeId === refunds[0]!.id,
    );
    expect(extraLines.map((l) => l.kind).sort()).toEqual(['duplicate', 'payment', 'refund']);
    for (const l of extraLines) {
      expect(l.userId).toBe(user.id);
      expect(l.flags).toEqual([`duplicate_subscription:${extra.id}`]);
    }

    // The user sees it, in both languages.
    const page = await (await client.get('/subscription')).text();
    expect(page).toContain('data-testid="duplicate-subscription"');
    expect(page).toContain('A second Pro subscription');
    expect(page).toContain('$15.00');
    const zh = await (await client.get('/subscription', { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('第二個 Pro 訂閱');

    // Cancel stops the one that is kept.
    const cancel = await client.postJson('/api/subscription/cancel', {});
    expect(cancel.status).toBe(200);
    expect(stripe.objects.get(kept!.id)!.cancel_at_period_end).toBe(true);
    await settled();
    expect(await statusOf(user.id)).toBe('canceled');
    await verified();
  });

  it('two sessions paid at once, every event delivered concurrently and twice: one kept, one refunded, 45 credits', async () => {
    for (const round of [0, 1, 2]) {
      const { user, client } = await newUser(`one-two-${round}`);
      // The customer exists (as after any checkout); two sessions are open outside the claim.
      await checkout(client);
      const customer = await customerOf(user.id);
      const a = await sessionOutsideTheApp(user.id, customer);
      const b = await sessionOutsideTheApp(user.id, customer);
      let events: StripeEvent[] = [];
      stripe.setAutoDeliver(false);
      try {
        const before = stripe.events.length;
        await stripe.pay(a.id);
        await stripe.pay(b.id);
        events = stripe.events.slice(before);
      } finally {
        stripe.setAutoDeliver(true);
      }
      // Shuffled (seeded by the round), each twice, plus the return page for both sessions.
      const order = [...events, ...events].sort(
        (x, y) => ((x.id.charCodeAt(x.id.length - 1 - round) * 31) % 17) - ((y.id.charCodeAt(y.id.length - 1 - round) * 31) % 17),
      );
      const answers = await Promise.all([
        ...order.map((e) => stripe.deliver(e)),
        client.get(`/subscription?success=true&session_id=${a.id}`),
        client.get(`/subscription?success=true&session_id=${b.id}`),
      ]);
      expect(answers.every((r) => r.status === 200)).toBe(true);
      await settled();

      const subs = subscriptionsOf(customer);
      expect(subs).toHaveLength(2);
      expect(subs.map((s) => stripe.objects.get(s.id)!.status).sort()).toEqual(['active', 'canceled']);
      const refunded = [...stripe.objects.values()].filter((o) => o.object === 'charge' && o.customer === customer && o.refunded);
      expect(refunded).toHaveLength(1);
      expect(await statusOf(user.id)).toBe('pro');
      expect(await grantsOf(user.id)).toEqual([5, 45]);
      expect((await flagsOf(user.id)).map((f) => f.kind)).toEqual(['duplicate_subscription']);
      // The kept one is the live one the page and cancel use.
      const live = subs.find((s) => stripe.objects.get(s.id)!.status === 'active')!;
      const [row] = await sql<{ id: string }[]>`
        SELECT subscription_id AS id FROM billing_subscriptions WHERE user_id = ${user.id} AND duplicate_of IS NULL`;
      expect(row!.id).toBe(live.id);
      await verified();
    }
  });

  it('the job runs again after a crash between cancel and refund: still one refund', async () => {
    const { user, client } = await newUser('one-again');
    const { body } = await checkout(client);
    await stripe.pay(body.sessionId!);
    await settled();
    const customer = await customerOf(user.id);
    const extra = await stripe.subscribe(customer, { userId: user.id });
    await settled();
    // As if the job had refunded and died before writing that down: run it again twice at once.
    await sql`UPDATE billing_subscriptions SET duplicate_resolved_at = NULL WHERE subscription_id = ${extra.id}`;
    const { resolveDuplicateSubscription } = await import('../../app/services/billing/duplicates.server');
    await Promise.all([resolveDuplicateSubscription(extra.id), resolveDuplicateSubscription(extra.id)]);
    const refunds = [...stripe.objects.values()].filter(
      (o) => o.object === 'refund' && (o.metadata as { subscription?: string }).subscription === extra.id,
    );
    expect(refunds).toHaveLength(1);
    expect(await grantsOf(user.id)).toEqual([5, 45]);
    await verified();
  });

  // Last in the file: its refund ends failed on purpose.
  it('the refund job failing at Stripe: retrying (attempts, last error), then failed once its attempts are spent; seen by finance, reconcile and the user', async () => {
    const { user, client } = await newUser('one-fails');
    const { body } = await checkout(client);
    await stripe.pay(body.sessionId!);
    await settled();
    const customer = await customerOf(user.id);
    // Stripe will not list the invoices: the job cannot learn what to refund.
    stripe.failRequests('GET /v1/invoices', 1000);
    try {
      const extra = await stripe.subscribe(customer, { userId: user.id });
      await settled();
      const [row] = await sql<{ attempts: number; error: string | null }[]>`
        SELECT duplicate_refund_attempts AS attempts, duplicate_refund_last_error AS error
        FROM billing_subscriptions WHERE subscription_id = ${extra.id}`;
      expect(row!.attempts).toBeGreaterThanOrEqual(1);
      expect(row!.error).toContain('Test failure of GET /v1/invoices');

      // Retrying: finance sees the attempts and the error, reconcile calls it outstanding (not yet a failure), the user is told plainly.
      const admin = await createUser(sql, 'one-fails-admin');
      await sql`UPDATE users SET role = 'admin' WHERE id = ${admin.id}`;
      const adminClient = new TestClient(app.url, { 'accept-language': 'en' });
      const { setCookie } = await createSession(admin.id);
      const pair = setCookie.split(';')[0]!;
      adminClient.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      let html = await (await adminClient.get('/admin/ledger')).text();
      expect(html).toMatch(/data-refund-state="retrying">Refund retrying: attempt \d+, last error: Test failure of GET \/v1\/invoices/);
      let line = (await reconcile()).lines.find((l) => l.stripeId === extra.id && l.kind === 'duplicate')!;
      expect(line).toMatchObject({ status: 'flagged' });
      expect(line.note).toMatch(/^outstanding: retrying \(attempt \d+, last error: Test failure/);
      let page = await (await client.get('/subscription')).text();
      expect(page).toContain('It is taking longer than usual: we keep trying.');

      // The attempts spent (the bound, here 3): failed, the flag open again, reconcile fails naming it; no further attempt runs.
      await sql`UPDATE billing_finance_flags SET acknowledged_at = now() WHERE ref = ${`duplicate_subscription:${extra.id}`}`;
      for (let i = 0; i < 5; i++) {
        await attemptDuplicateRefund(extra.id, 3, sql).catch(() => undefined);
      }
      const [after] = await sql<{ attempts: number; failed: Date | null }[]>`
        SELECT duplicate_refund_attempts AS attempts, duplicate_refund_failed_at AS failed FROM billing_subscriptions WHERE subscription_id = ${extra.id}`;
      expect(after!.failed).not.toBeNull();
      expect(after!.attempts).toBe(Math.max(3, row!.attempts));
      expect(await attemptDuplicateRefund(extra.id, 3, sql)).toMatchObject({ outcome: 'ignored' });
      const report = await reconcile();
      line = report.lines.find((l) => l.stripeId === extra.id && l.kind === 'duplicate')!;
      expect(line).toMatchObject({ status: 'unmatched' });
      expect(line.note).toMatch(/^outstanding: refund failed after \d+ attempts: Test failure/);
      expect(report.ok).toBe(false);
      html = await (await adminClient.get('/admin/ledger')).text();
      expect(html).toMatch(/data-refund-state="failed">Refund failed after \d+ attempts/);
      const zhAdmin = await (await adminClient.get('/admin/ledger', { 'accept-language': 'zh-HK' })).text();
      expect(zhAdmin).toContain('請在 Stripe 以人手退款');
      page = await (await client.get('/subscription')).text();
      expect(page).toContain('Our team has been told and will do it by hand.');
      expect(page).not.toContain('is being canceled and refunded');
      const zh = await (await client.get('/subscription', { 'accept-language': 'zh-HK' })).text();
      expect(zh).toContain('會以人手處理');
      // Nothing refunded, nothing granted.
      expect([...stripe.objects.values()].filter((o) => o.object === 'refund' && o.customer === customer)).toEqual([]);
      expect(await grantsOf(user.id)).toEqual([5, 45]);

      // The admin's actions on a failed refund are plain form posts (no JavaScript needed); a cross-site post is refused.
      expect(html).toContain('Retry refund');
      expect(html).toContain('Close as refunded by hand');
      expect(zhAdmin).toContain('重試退款');
      const forged = await adminClient.postForm(
        '/admin/ledger',
        { intent: 'retryRefund', target: extra.id },
        { origin: 'https://evil.example' },
      );
      expect(forged.status).toBe(403);
      // Retry: attempts reset, pending again, the job enqueued; it fails again here and is retried by the queue.
      let res = await adminClient.postForm('/admin/ledger', { intent: 'retryRefund', target: extra.id });
      expect(res.status).toBe(302);
      const [retried] = await sql<{ failed: Date | null }[]>`
        SELECT duplicate_refund_failed_at AS failed FROM billing_subscriptions WHERE subscription_id = ${extra.id}`;
      expect(retried!.failed).toBeNull();
      line = (await reconcile()).lines.find((l) => l.stripeId === extra.id && l.kind === 'duplicate')!;
      expect(line.status).toBe('flagged');
      // Spent again; then closed by hand with a note: settled for reconcile, audited, told to the user.
      await sql`UPDATE billing_subscriptions SET duplicate_refund_failed_at = now(), duplicate_refund_last_error = 'still failing'
        WHERE subscription_id = ${extra.id}`;
      res = await adminClient.postForm('/admin/ledger', { intent: 'closeRefund', target: extra.id, note: '' });
      expect(res.status).toBe(302);
      expect((await reconcile()).lines.find((l) => l.stripeId === extra.id && l.kind === 'duplicate')!.status).toBe('unmatched');
      res = await adminClient.postForm('/admin/ledger', { intent: 'closeRefund', target: extra.id, note: 'Refunded by hand in Stripe' });
      expect(res.status).toBe(302);
      line = (await reconcile()).lines.find((l) => l.stripeId === extra.id && l.kind === 'duplicate')!;
      expect(line).toMatchObject({ status: 'matched', note: 'closed by hand: Refunded by hand in Stripe' });
      const actions = await sql<{ action: string; adminId: string; note: string | null }[]>`
        SELECT action, admin_id AS "adminId", note FROM billing_admin_actions WHERE ref = ${`duplicate_subscription:${extra.id}`} ORDER BY id`;
      expect(actions).toEqual([
        { action: 'duplicate_refund_retry', adminId: admin.id, note: null },
        { action: 'duplicate_refund_close', adminId: admin.id, note: 'Refunded by hand in Stripe' },
      ]);
      html = await (await adminClient.get('/admin/ledger?flags=acknowledged')).text();
      expect(html).toContain('Refund closed by hand: Refunded by hand in Stripe');
      expect(html).toMatch(/Refund closed by [^,]+, .*: Refunded by hand in Stripe/);
      page = await (await client.get('/subscription')).text();
      expect(page).toContain('was canceled and refunded by our team');
      expect(await attemptDuplicateRefund(extra.id, 3, sql)).toMatchObject({ outcome: 'ignored' });
    } finally {
      stripe.failRequests('GET /v1/invoices', 0);
    }
  });
});
