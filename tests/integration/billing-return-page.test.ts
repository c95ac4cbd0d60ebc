import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { entriesOf, getCreditSummary, grantSignupCredits } from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { hashPassword } from '../../app/services/auth.server';
import { createSession } from '../../app/services/sessions.server';
import { TestClient, type TestApp } from '../support/app-server';
import { closeBillingApp, startBillingApp } from '../support/billing';
import { createUser } from '../support/ledger';
import type { StripeEvent, TestStripe } from '../support/stripe-server';

// The return page says only what the server verified (the session read from
// Stripe and fulfilled like the webhook, booked once; the balance read after that, in the panel
// and the header alike), the Pro card warns that upgrading forfeits the Free credits, and a return
// while signed out goes through the sign-in (with the message) back to the same URL.

let stripe: TestStripe;
let app: TestApp;

beforeAll(async () => ({ stripe, app } = await startBillingApp()));
afterAll(() => closeBillingApp(app, stripe));

const PASSWORD = 'return-page-secret-1';

async function newUser(label: string, language = 'en') {
  const user = await createUser(sql, label);
  await grantSignupCredits(user.id, sql);
  await sql`UPDATE users SET password_hash = ${await hashPassword(PASSWORD)} WHERE id = ${user.id}`;
  const client = new TestClient(app.url, { 'accept-language': language });
  const { setCookie } = await createSession(user.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  return { user, client };
}

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

const checkout = async (client: TestClient, priceId: string) =>
  (await (await client.postJson('/api/subscription/checkout', { priceId })).json()) as { url: string; sessionId: string };

/** Pays a session at the Stripe test server with its webhooks held back; returns them. */
async function payWithoutWebhooks(sessionId: string): Promise<{ returnUrl: string; events: StripeEvent[] }> {
  stripe.setAutoDeliver(false);
  try {
    const before = stripe.events.length;
    const returnUrl = await stripe.pay(sessionId);
    return { returnUrl, events: stripe.events.slice(before) };
  } finally {
    stripe.setAutoDeliver(true);
  }
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
/** The text right after an element with this test id (its own and what follows, tags stripped). */
const textAfter = (html: string, id: string) => {
  const at = html.indexOf(`data-testid="${id}"`);
  return at < 0
    ? ''
    : html
        .slice(at, at + 1200)
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ');
};
const testIdText = (html: string, id: string) =>
  [...html.matchAll(new RegExp(`data-testid="${id}"[^>]*>(.*?)</`, 'gs'))].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());
const headerBalances = (html: string) =>
  html
    .split('data-testid="credit-balance"')
    .slice(1)
    .map((rest) =>
      rest
        .slice(0, rest.indexOf('</span></'))
        .replace(/<[^>]+>/g, '')
        .replace(/^[^>]*>/, '')
        .trim(),
    );

describe('the return page believes Stripe, not its URL', () => {
  it('a forged success URL claims nothing and adds nothing (en and zh-HK)', async () => {
    const { user, client } = await newUser('ret-forged');
    const forged = '/subscription?success=true&isTopUp=true&creditAmount=5000&session_id=cs_test_doesnotexist';
    const html = await (await client.get(forged)).text();
    expect(html).not.toContain('data-testid="payment-success"');
    expect(html).not.toContain('Payment successful');
    expect(html).not.toMatch(/5,?000 credits/);
    expect(html).toContain('data-testid="payment-unverified"');
    expect(html).toContain('We could not confirm this payment');
    expect(testIdText(html, 'total-credits')).toEqual(['5']);
    const zh = await (await client.get(forged, { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('未能確認這筆付款');
    expect(zh).not.toContain('付款成功');
    // The JSON endpoints the page calls say the same.
    const api = await client.postJson('/api/subscription/manual-upgrade', {
      isTopUp: true,
      creditAmount: '5000',
      sessionId: 'cs_test_doesnotexist',
    });
    expect(api.status).toBe(404);
    expect(await getCreditSummary(user.id)).toMatchObject({ totalCreditsRemaining: 5 });
    expect((await entriesOf(user.id)).map((e) => e.kind)).toEqual(['monthly_grant']);
    await verified();
  });

  it('a success URL without a session announces nothing, even to a Pro user (en and zh-HK)', async () => {
    const { client } = await newUser('ret-nosession');
    const pro = await checkout(client, stripe.prices.pro);
    await stripe.pay(pro.sessionId);
    await settled();
    for (const language of ['en', 'zh-HK']) {
      const html = await (
        await client.get('/subscription?success=true&isTopUp=true&creditAmount=9999', { 'accept-language': language })
      ).text();
      expect(html).not.toContain('data-testid="payment-success"');
      expect(html).not.toContain('Payment successful');
      expect(html).not.toContain('Your Pro subscription is active');
      expect(html).not.toContain('付款成功');
      // (the URL itself is echoed in the page's forms; no text names the amount)
      expect(html).not.toMatch(/9,?999\s*(credits|點)/);
    }
  });

  it("an unpaid session of one's own says 'not confirmed yet'; another user's paid session says nothing was added", async () => {
    const owner = await newUser('ret-owner');
    const other = await newUser('ret-other');
    const open = await checkout(other.client, stripe.prices.pro);
    const pending = await (await other.client.get(`/subscription?success=true&session_id=${open.sessionId}`)).text();
    expect(pending).toContain('data-testid="payment-pending"');
    expect(pending).not.toContain('data-testid="payment-success"');

    const paid = await checkout(owner.client, stripe.prices.pro);
    await payWithoutWebhooks(paid.sessionId);
    const stolen = await (await other.client.get(`/subscription?success=true&session_id=${paid.sessionId}`)).text();
    expect(stolen).toContain('data-testid="payment-unverified"');
    expect(stolen).not.toContain('data-testid="payment-success"');
    expect(testIdText(stolen, 'current-plan-badge').join()).toContain('Free');
    expect(await getCreditSummary(other.user.id)).toMatchObject({ totalCreditsRemaining: 5 });
  });

  it('without the webhook: the first render books the payment and shows the real balance in the panel and the header; the late webhook books nothing more', async () => {
    const { user, client } = await newUser('ret-nohook');
    // Pro first (webhooks on), then a top-up whose webhook is held back.
    const pro = await checkout(client, stripe.prices.pro);
    await stripe.pay(pro.sessionId);
    await settled();
    const topUp = await checkout(client, stripe.prices.topup360);
    const { returnUrl, events } = await payWithoutWebhooks(topUp.sessionId);
    // The URL lies about the amount: the page says what the checkout bought.
    const lying = pathOf(returnUrl).replace('creditAmount=360', 'creditAmount=5000');
    const html = await (await client.get(lying)).text();
    expect(textAfter(html, 'payment-success')).toContain('360 credits were added');
    expect(html).not.toMatch(/5,?000 credits/);
    expect(testIdText(html, 'topup-credits')).toEqual(['360']);
    expect(testIdText(html, 'total-credits')).toEqual(['405']);
    expect(headerBalances(html).length).toBeGreaterThan(0);
    for (const b of headerBalances(html)) expect(b).toContain('405');
    // Reloading the return page and the late webhook book nothing more, and the page no longer
    // announces the payment as new: it says it was confirmed before.
    const again = await (await client.get(lying)).text();
    expect(again).not.toContain('data-testid="payment-success"');
    expect(again).not.toContain('credits were added');
    expect(again).toContain('data-testid="payment-shown"');
    expect(textAfter(again, 'payment-shown')).toContain('already confirmed');
    const againZh = await (await client.get(lying, { 'accept-language': 'zh-HK' })).text();
    expect(againZh).not.toContain('付款成功');
    expect(againZh).toContain('data-testid="payment-shown"');
    await Promise.all(events.map((e) => stripe.deliver(e)));
    await settled();
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 360 });
    expect((await entriesOf(user.id)).filter((e) => e.kind === 'topup_purchase')).toHaveLength(1);
    await verified();
  });
});

describe('the Pro card before paying', () => {
  it('warns that upgrading forfeits the Free credits, in both languages; not once Pro', async () => {
    const { client } = await newUser('ret-forfeit');
    const en = await (await client.get('/subscription')).text();
    expect(testIdText(en, 'free-credits-forfeit')).toEqual([
      'Upgrading ends your Free credits: the 5 credits you have left are forfeited when Pro starts, and Pro gives you 45 credits a month instead.',
    ]);
    // The warning sits in the Pro card, before its Subscribe button.
    const card = en.slice(en.indexOf('data-testid="plan-pro"'));
    expect(card.indexOf('free-credits-forfeit')).toBeGreaterThan(0);
    expect(card.indexOf('free-credits-forfeit')).toBeLessThan(card.indexOf('data-testid="subscribe-pro"'));
    const zh = await (await client.get('/subscription', { 'accept-language': 'zh-HK' })).text();
    expect(testIdText(zh, 'free-credits-forfeit')).toEqual(['升級後免費點數會停用：你餘下的 5 點會在 Pro 開始時作廢，改為每月 45 點。']);
    const pro = await checkout(client, stripe.prices.pro);
    await stripe.pay(pro.sessionId);
    await settled();
    expect(await (await client.get('/subscription')).text()).not.toContain('free-credits-forfeit');
  });
});

describe('signed out on return', () => {
  it('the sign-in says why (en and zh-HK), and signing in lands on the same return URL, which books the payment', async () => {
    const { user, client } = await newUser('ret-signedout');
    const pro = await checkout(client, stripe.prices.pro);
    const { returnUrl } = await payWithoutWebhooks(pro.sessionId);
    const back = pathOf(returnUrl);
    const anonymous = new TestClient(app.url, { 'accept-language': 'en' });
    const res = await anonymous.get(back);
    expect(res.status).toBe(302);
    const auth = res.headers.get('location')!;
    expect(auth).toBe(`/auth?redirectTo=${encodeURIComponent(back)}`);
    const page = await (await anonymous.get(auth)).text();
    expect(textAfter(page, 'payment-login-required')).toContain('Please log in to complete your subscription process.');
    const zh = await (await anonymous.get(auth, { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('請先登入以完成訂閱程序。');
    // An ordinary sign-in says nothing of payments.
    expect(await (await anonymous.get('/auth')).text()).not.toContain('payment-login-required');

    const login = await anonymous.postForm(auth, { intent: 'login', email: user.email, password: PASSWORD, redirectTo: back });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe(back);
    const html = await (await anonymous.get(back)).text();
    expect(textAfter(html, 'payment-success')).toContain('Your Pro subscription is active');
    expect(testIdText(html, 'monthly-credits')).toEqual(['45']);
    // Signed in already (another tab): the sign-in link goes straight back.
    const again = await anonymous.get(auth);
    expect(again.headers.get('location')).toBe(back);
    await verified();
  });
});
