import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { adjust, getCreditSummary, grantSignupCredits, entriesOf } from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { createSession } from '../../app/services/sessions.server';
import { TestClient, type TestApp } from '../support/app-server';
import { closeBillingApp, startBillingApp } from '../support/billing';
import { createUser } from '../support/ledger';
import type { StripeEvent, TestStripe } from '../support/stripe-server';

let stripe: TestStripe;
let app: TestApp;

beforeAll(async () => ({ stripe, app } = await startBillingApp()));
afterAll(() => closeBillingApp(app, stripe));

type User = { id: string; email: string };

async function newUser(label: string): Promise<{ user: User; client: TestClient }> {
  const user = await createUser(sql, label);
  await grantSignupCredits(user.id, sql);
  const client = new TestClient(app.url, { 'accept-language': 'en' });
  const { setCookie } = await createSession(user.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  return { user, client };
}

async function status(userId: string) {
  const [row] = await sql<{ s: string }[]>`SELECT subscription_status AS s FROM users WHERE id = ${userId}`;
  return row!.s;
}

/** Waits until every stored event has been applied by the worker. */
async function settled(timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM billing_events WHERE processed_at IS NULL`;
    if (row!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} events not processed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function verified() {
  const report = await verifyLedger();
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
}

async function checkout(client: TestClient, priceId: string, language = 'en') {
  const res = await client.postJson('/api/subscription/checkout', { priceId, language });
  return { res, body: (await res.json()) as { url?: string; sessionId?: string; error?: string } };
}

/** Free → Pro through Checkout, the hosted page's payment and the webhook. */
async function subscribe(client: TestClient) {
  const { res, body } = await checkout(client, stripe.prices.pro);
  expect(res.status).toBe(200);
  const returnUrl = await stripe.pay(body.sessionId!);
  await settled();
  const sub = [...stripe.objects.values()].find((o) => o.object === 'checkout.session' && o.id === body.sessionId)!.subscription as string;
  return { sessionId: body.sessionId!, returnUrl, subscriptionId: sub };
}

async function buyTopUp(client: TestClient, priceId = stripe.prices.topup100) {
  const { res, body } = await checkout(client, priceId);
  expect(res.status).toBe(200);
  await stripe.pay(body.sessionId!);
  await settled();
  return body.sessionId!;
}

const grantsOf = async (userId: string) => (await entriesOf(userId)).filter((e) => e.kind === 'monthly_grant');

describe('plans', () => {
  it('GET /api/subscription/plans lists the catalogue with price ids and features', async () => {
    const res = await new TestClient(app.url).get('/api/subscription/plans');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.plans.map((p: { id: string }) => p.id)).toEqual(['free', 'pro']);
    expect(body.plans[1]).toMatchObject({ id: 'pro', name: 'Pro', price: 15, priceId: stripe.prices.pro });
    expect(body.plans[1].features).toContain('45 credits per month');
    expect(body.topUpPlans).toEqual([
      expect.objectContaining({ id: 'topup-100', price: 30, priceId: stripe.prices.topup100, limits: { credits: 100 } }),
      expect.objectContaining({ id: 'topup-360', price: 100, limits: { credits: 360 } }),
      expect.objectContaining({ id: 'topup-1170', price: 300, limits: { credits: 1170 } }),
    ]);
  });
});

describe('subscribing', () => {
  it('checkout → payment → invoice.paid gives 45 credits and the Pro badge, once', async () => {
    const { user, client } = await newUser('bill-sub');
    const { res, body } = await checkout(client, stripe.prices.pro, 'zh-HK');
    expect(res.status).toBe(200);
    expect(body.url).toMatch(new RegExp(`^${stripe.url}/pay/cs_`));
    const session = stripe.objects.get(body.sessionId!)!;
    expect(session).toMatchObject({ mode: 'subscription', locale: 'zh-HK', client_reference_id: user.id });
    expect(String(session.success_url)).toBe('http://localhost:3999/subscription?success=true&session_id={CHECKOUT_SESSION_ID}');
    expect(String(session.cancel_url)).toBe('http://localhost:3999/subscription?canceled=true');

    await stripe.pay(body.sessionId!);
    await settled();
    expect(await status(user.id)).toBe('pro');
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 0 });
    const info = await (await client.get('/api/subscription')).json();
    expect(info).toMatchObject({ subscriptionStatus: 'pro', creditsRemaining: 45, totalCreditsRemaining: 45 });
    expect(new Date(info.nextBillingDate).getTime()).toBeGreaterThan(Date.now() + 25 * 24 * 3600 * 1000);
    const page = await (await client.get('/subscription')).text();
    expect(page).toContain('Pro');
    expect(page).toContain('data-testid="current-plan-marker"');
    // The signup grant was expired, the Pro grant booked once.
    expect((await grantsOf(user.id)).map((g) => g.amount)).toEqual([5, 45]);
    await verified();
  });

  it('one Stripe customer per user, even when checkout is clicked twice at once', async () => {
    const { user, client } = await newUser('bill-double');
    const results = await Promise.all([checkout(client, stripe.prices.pro), checkout(client, stripe.prices.pro)]);
    expect(results.map((r) => r.res.status)).toEqual([200, 200]);
    const customers = [...stripe.objects.values()].filter(
      (o) => o.object === 'customer' && (o.metadata as { userId?: string }).userId === user.id,
    );
    expect(customers).toHaveLength(1);
    const [row] = await sql<{ id: string }[]>`SELECT stripe_customer_id AS id FROM billing_customers WHERE user_id = ${user.id}`;
    expect(row!.id).toBe(customers[0]!.id);
  });

  it('the same invoice.paid 10× in a row and 10× concurrently books once', async () => {
    const { user, client } = await newUser('bill-repeat');
    stripe.setAutoDeliver(false);
    try {
      const { body } = await checkout(client, stripe.prices.pro);
      await stripe.pay(body.sessionId!);
      const mine = stripe.events.filter(
        (e) =>
          JSON.stringify(e.data.object).includes(body.sessionId!) ||
          e.data.object.customer === stripe.objects.get(body.sessionId!)!.customer,
      );
      const invoicePaid = mine.find((e) => e.type === 'invoice.paid')!;
      const completed = mine.find((e) => e.type === 'checkout.session.completed')!;
      for (let i = 0; i < 10; i++) expect((await stripe.deliver(invoicePaid)).status).toBe(200);
      const answers = await Promise.all(Array.from({ length: 10 }, () => stripe.deliver(completed)));
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      // The same invoice again under new event ids (Stripe resends as new events too): still once.
      await Promise.all(Array.from({ length: 10 }, (_, i) => stripe.deliver({ ...invoicePaid, id: `${invoicePaid.id}_copy${i}` })));
      await settled();
    } finally {
      stripe.setAutoDeliver(true);
    }
    const [{ n }] = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM billing_events WHERE payload->'data'->'object'->>'id' = (
      SELECT payload->'data'->'object'->>'id' FROM billing_events WHERE type = 'invoice.paid' AND payload::text LIKE ${'%' + user.id + '%'} LIMIT 1)`) as unknown as [
      { n: number },
    ];
    expect(n).toBe(11);
    expect((await grantsOf(user.id)).map((g) => g.amount)).toEqual([5, 45]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45 });
    expect(await status(user.id)).toBe('pro');
    await verified();
  });

  it('the return page (manual-upgrade) racing the webhook books once', async () => {
    const { user, client } = await newUser('bill-race');
    stripe.setAutoDeliver(false);
    let events: StripeEvent[] = [];
    let sessionId = '';
    try {
      const { body } = await checkout(client, stripe.prices.pro);
      sessionId = body.sessionId!;
      const before = stripe.events.length;
      await stripe.pay(sessionId);
      events = stripe.events.slice(before);
    } finally {
      stripe.setAutoDeliver(true);
    }
    const [manual, activate, ...webhooks] = await Promise.all([
      client.postJson('/api/subscription/manual-upgrade', { sessionId }),
      client.postJson('/api/subscription/activate', {}, { referer: `${app.url}/subscription?success=true&session_id=${sessionId}` }),
      ...events.map((e) => stripe.deliver(e)),
      client.get(`/subscription?success=true&session_id=${sessionId}`),
    ]);
    expect(manual!.status).toBe(200);
    expect(await manual!.json()).toMatchObject({ success: true, kind: 'subscription', subscriptionStatus: 'pro' });
    expect(activate!.status).toBe(200);
    expect(webhooks.map((r) => r.status)).toEqual(Array(webhooks.length).fill(200));
    await settled();
    expect((await grantsOf(user.id)).map((g) => g.amount)).toEqual([5, 45]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45 });
    await verified();
  });

  it("another user's Checkout Session is refused (404) and books nothing", async () => {
    const owner = await newUser('bill-owner');
    const thief = await newUser('bill-thief');
    const { body } = await checkout(owner.client, stripe.prices.pro);
    stripe.setAutoDeliver(false);
    try {
      await stripe.pay(body.sessionId!);
    } finally {
      stripe.setAutoDeliver(true);
    }
    const res = await thief.client.postJson('/api/subscription/manual-upgrade', { sessionId: body.sessionId });
    expect(res.status).toBe(404);
    const page = await thief.client.get(`/subscription?success=true&session_id=${body.sessionId}`);
    expect(page.status).toBe(200);
    expect(await status(thief.user.id)).toBe('free');
    expect(await status(owner.user.id)).toBe('free');
    expect(await getCreditSummary(thief.user.id)).toMatchObject({ creditsRemaining: 5 });
    // An unpaid session of one's own is not fulfilled either.
    const { body: open } = await checkout(thief.client, stripe.prices.pro);
    expect((await thief.client.postJson('/api/subscription/manual-upgrade', { sessionId: open.sessionId })).status).toBe(409);
    expect(await status(thief.user.id)).toBe('free');
    await verified();
  });

  it('a forged or stale signature is a 400 and nothing is stored or booked', async () => {
    const { user, client } = await newUser('bill-forged');
    const { body } = await checkout(client, stripe.prices.pro);
    stripe.setAutoDeliver(false);
    let events: StripeEvent[] = [];
    try {
      const before = stripe.events.length;
      await stripe.pay(body.sessionId!);
      events = stripe.events.slice(before);
    } finally {
      stripe.setAutoDeliver(true);
    }
    const invoicePaid = events.find((e) => e.type === 'invoice.paid')!;
    const forged = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
    expect((await stripe.deliver(invoicePaid, { signature: forged })).status).toBe(400);
    expect((await stripe.deliver(invoicePaid, { timestamp: Math.floor(Date.now() / 1000) - 3600 })).status).toBe(400);
    const noSig = await fetch(`${app.url}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(invoicePaid),
    });
    expect(noSig.status).toBe(400);
    const [{ n }] = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM billing_events WHERE id = ${invoicePaid.id}`) as unknown as [
      { n: number },
    ];
    expect(n).toBe(0);
    await settled();
    expect(await status(user.id)).toBe('free');
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 5 });
    // Unknown events are stored and ignored.
    const unknown = { ...invoicePaid, id: `evt_unknown_${user.id}`, type: 'customer.tax_id.created' };
    expect((await stripe.deliver(unknown)).status).toBe(200);
    await settled();
    const [row] = await sql<{ outcome: string }[]>`SELECT outcome FROM billing_events WHERE id = ${unknown.id}`;
    expect(row!.outcome).toBe('ignored');
    await verified();
  });
});

describe('top-ups', () => {
  it('a top-up while Free is refused: requires Pro subscription', async () => {
    const { user, client } = await newUser('bill-free-topup');
    const { res, body } = await checkout(client, stripe.prices.topup100);
    expect(res.status).toBe(403);
    expect(body.error).toBe('Top-up purchase requires Pro subscription');
    const form = await client.postForm('/subscription', { intent: 'checkout', priceId: stripe.prices.topup100 });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/subscription');
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 0 });
  });

  it('Pro buys a pack (payment mode) and a full refund reverses it, clamped, flagged for finance', async () => {
    const { user, client } = await newUser('bill-topup');
    await subscribe(client);
    const { body } = await checkout(client, stripe.prices.topup100);
    const session = stripe.objects.get(body.sessionId!)!;
    expect(session.mode).toBe('payment');
    expect(String(session.success_url)).toBe(
      'http://localhost:3999/subscription?success=true&isTopUp=true&creditAmount=100&session_id={CHECKOUT_SESSION_ID}',
    );
    const back = await stripe.pay(body.sessionId!);
    expect(back).toContain(`session_id=${body.sessionId}`);
    await settled();
    // The return page too: nothing twice.
    expect(
      (await client.postJson('/api/subscription/manual-upgrade', { sessionId: body.sessionId, isTopUp: true, creditAmount: '100' })).status,
    ).toBe(200);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 100 });
    // Spend 30 of the top-up bucket by an adjustment, then refund: 70 come back out.
    await adjust({ userId: user.id, amount: -30, reason: 'test spend', actor: 'test', bucket: 'topup', key: `test-${user.id}` });
    await stripe.refund(String(stripe.objects.get(body.sessionId!)!.payment_intent));
    await settled();
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 0 });
    const [flag] = await sql<{ kind: string; detail: { reversed: number; shortfall: number } }[]>`
      SELECT kind, detail FROM billing_finance_flags WHERE user_id = ${user.id}`;
    expect(flag).toMatchObject({ kind: 'topup_refund', detail: { reversed: 70, shortfall: 30 } });
    await verified();
  });
});

describe('cancel and the end of the period', () => {
  it('cancel keeps Pro until the period ends, then top-ups are forfeited and the Free grant follows', async () => {
    const { user, client } = await newUser('bill-cancel');
    expect((await client.postJson('/api/subscription/cancel', {})).status).toBe(400);
    const { subscriptionId } = await subscribe(client);
    await buyTopUp(client);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 100 });
    const page = await (await client.get('/subscription')).text();
    expect(page).toContain('You have 100 top-up credits. They will be lost when your subscription ends.');

    const res = await client.postJson('/api/subscription/cancel', {});
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, subscriptionStatus: 'canceled' });
    await settled();
    expect(await status(user.id)).toBe('canceled');
    expect(stripe.objects.get(subscriptionId)!.cancel_at_period_end).toBe(true);
    // Benefits kept; a second cancel and top-ups are refused.
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 100 });
    const again = await client.postJson('/api/subscription/cancel', {});
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('No active subscription');
    expect((await checkout(client, stripe.prices.topup360)).res.status).toBe(403);

    await stripe.endSubscription(subscriptionId);
    await settled();
    expect(await status(user.id)).toBe('free');
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 5, topUpCreditsRemaining: 0 });
    const kinds = (await entriesOf(user.id)).map((e) => e.kind);
    expect(kinds.slice(-3)).toEqual(['topup_forfeit', 'monthly_expire', 'monthly_grant']);
    await verified();
  });

  it('canceling, then resubscribing resumes the same subscription (no second charge)', async () => {
    const { user, client } = await newUser('bill-resume');
    const { subscriptionId } = await subscribe(client);
    expect((await client.postForm('/subscription', { intent: 'cancel' })).status).toBe(303);
    await settled();
    expect(await status(user.id)).toBe('canceled');
    const { res, body } = await checkout(client, stripe.prices.pro);
    expect(res.status).toBe(200);
    expect(body.url).toBe('http://localhost:3999/subscription?resumed=true');
    await settled();
    expect(await status(user.id)).toBe('pro');
    expect(stripe.objects.get(subscriptionId)!.cancel_at_period_end).toBe(false);
    // The page it returns to tells the plan continuing, not a payment (none was made).
    for (const language of ['en', 'zh-HK']) {
      const page = await (await client.get('/subscription?resumed=true', { 'accept-language': language })).text();
      expect(page).toContain('data-testid="subscription-resumed"');
      expect(page).not.toContain('data-testid="payment-success"');
    }
  });

  it('subscription.deleted arriving before a late invoice.paid: Free stays, nothing granted', async () => {
    const { user, client } = await newUser('bill-late');
    const { subscriptionId } = await subscribe(client);
    stripe.setAutoDeliver(false);
    let renewal: StripeEvent;
    try {
      await stripe.renew(subscriptionId);
      renewal = stripe.eventsOf('invoice.paid').at(-1)!;
    } finally {
      stripe.setAutoDeliver(true);
    }
    await stripe.endSubscription(subscriptionId);
    await settled();
    expect(await status(user.id)).toBe('free');
    expect((await stripe.deliver(renewal!)).status).toBe(200);
    await settled();
    expect(await status(user.id)).toBe('free');
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 5 });
    expect((await grantsOf(user.id)).map((g) => g.amount)).toEqual([5, 45, 5]);
    await verified();
  });

  it('a renewal invoice expires the rest of the month and grants 45 for the new period', async () => {
    const { user, client } = await newUser('bill-renew');
    const { subscriptionId } = await subscribe(client);
    await adjust({ userId: user.id, amount: -20, reason: 'test spend', actor: 'test', bucket: 'monthly', key: `spend-${user.id}` });
    await stripe.renew(subscriptionId);
    await settled();
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45 });
    expect((await grantsOf(user.id)).map((g) => g.amount)).toEqual([5, 45, 45]);
    await verified();
  });
});

describe('without JavaScript and without Stripe', () => {
  it('the page has a form for every button; checkout goes through the redirect page to Stripe', async () => {
    const { client } = await newUser('bill-nojs');
    const html = await (await client.get('/subscription')).text();
    expect(html).toContain('name="intent" value="checkout"');
    expect(html).toContain(`value="${stripe.prices.pro}"`);
    expect(html).toContain('Top-up purchase requires Pro subscription');
    const res = await client.postForm('/subscription', { intent: 'checkout', priceId: stripe.prices.pro });
    expect(res.status).toBe(303);
    const hop = res.headers.get('location')!;
    expect(hop).toMatch(/^\/subscription\/redirect\?to=/);
    const page = await (await client.get(hop)).text();
    expect(page).toMatch(new RegExp(`http-equiv="refresh" content="0;url=${stripe.url}/pay/cs_`));
    // Only Stripe's hosts are accepted by the hop.
    const evil = await client.get(`/subscription/redirect?to=${encodeURIComponent('https://evil.example/x')}`);
    expect(evil.status).toBe(302);
    expect(evil.headers.get('location')).toBe('/subscription');
  });

  it('a payment return while signed out goes to the sign-in, which says why and keeps its parameters', async () => {
    const back = '/subscription?success=true&isTopUp=true&creditAmount=100&session_id=cs_test_x';
    const res = await new TestClient(app.url).get(back);
    expect(res.status).toBe(302);
    const target = '/auth?redirectTo=' + encodeURIComponent(back);
    expect(res.headers.get('location')).toBe(target);
    const html = await (await new TestClient(app.url, { 'accept-language': 'en' }).get(target)).text();
    expect(html).toContain('Please log in to complete your subscription process.');
    expect(html).toContain(`name="redirectTo" value="${back.replace(/&/g, '&amp;')}"`);
    expect((await new TestClient(app.url).get('/subscription')).status).toBe(302);
  });

  it("the portal button opens Stripe's billing portal for the customer", async () => {
    const { client } = await newUser('bill-portal');
    expect((await client.postForm('/subscription', { intent: 'portal' })).headers.get('location')).toBe('/subscription');
    await subscribe(client);
    const res = await client.postForm('/subscription', { intent: 'portal' });
    expect(res.headers.get('location')).toMatch(new RegExp(`^/subscription/redirect\\?to=${encodeURIComponent(stripe.url + '/portal/')}`));
  });
});
