import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { grantSignupCredits, post, purchaseTopUp, reserve } from '../../app/services/ledger.server';
import { createSession } from '../../app/services/sessions.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { createUser } from '../support/ledger';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

async function signedIn(user: { id: string }, headers: Record<string, string> = {}) {
  const client = new TestClient(app.url, headers);
  const { setCookie } = await createSession(user.id);
  const pair = setCookie.split(';')[0]!;
  const eq = pair.indexOf('=');
  client.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  return client;
}

describe('ledger JSON routes', () => {
  it('GET /api/subscription is 401 JSON when signed out', async () => {
    const res = await new TestClient(app.url).get('/api/subscription');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(typeof (await res.json()).error).toBe('string');
    expect((await new TestClient(app.url).get('/api/credits/history')).status).toBe(401);
  });

  it('GET /api/subscription returns the subscription info fields (and opens the ledger of a new account)', async () => {
    const user = await createUser(sql, 'api-sub');
    const client = await signedIn(user);
    const res = await client.get('/api/subscription');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      subscriptionStatus: 'free',
      creditsRemaining: 5,
      topUpCreditsRemaining: 0,
      totalCreditsRemaining: 5,
      textCreditsRemaining: 5,
      imageCreditsRemaining: 5,
    });
    expect(new Date(body.nextBillingDate).getTime()).toBeGreaterThan(Date.now());
    await purchaseTopUp(user.id, `cs_api_${user.id}`, 99);
    expect(await (await client.get('/api/subscription')).json()).toMatchObject({
      creditsRemaining: 5,
      topUpCreditsRemaining: 99,
      totalCreditsRemaining: 104,
    });
  });

  it("GET /api/credits/history pages the user's own rows, newest first", async () => {
    const user = await createUser(sql, 'api-history');
    await grantSignupCredits(user.id, sql);
    await purchaseTopUp(user.id, `cs_hist_${user.id}`, 100);
    await reserve(
      user.id,
      Array.from({ length: 23 }, (_, i) => ({ key: `${user.id}:api:${i}`, amount: 1 })),
    );
    const client = await signedIn(user);
    const first = await (await client.get('/api/credits/history')).json();
    expect(first).toMatchObject({ page: 1, pageSize: 20, pageCount: 2, total: 25 });
    expect(first.entries).toHaveLength(20);
    expect(first.entries[0]).toMatchObject({ kind: 'reserve', change: -1, balanceAfter: 82 });
    const second = await (await client.get('/api/credits/history?page=2')).json();
    expect(second.entries.map((e: { kind: string }) => e.kind)).toEqual([
      'reserve',
      'reserve',
      'reserve',
      'topup_purchase',
      'monthly_grant',
    ]);
    expect((await (await client.get('/api/credits/history?page=abc')).json()).page).toBe(1);
    const stranger = await signedIn(await createUser(sql, 'api-stranger'));
    expect((await (await stranger.get('/api/credits/history')).json()).total).toBe(0);
  });
});

describe('credit history on /subscription', () => {
  it('shows the history, the chart and the CSV link without JavaScript, in both languages', async () => {
    const user = await createUser(sql, 'page');
    await grantSignupCredits(user.id, sql);
    await reserve(user.id, [{ key: `${user.id}:page`, amount: 2 }]);
    await post(`${user.id}:page`);
    const client = await signedIn(user, { 'accept-language': 'en' });
    const res = await client.get('/subscription');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Credit history');
    expect(html).toContain('Monthly credits granted');
    expect(html).toContain('Held credits spent');
    expect(html).toContain('data-testid="balance-chart"');
    expect(html).toContain('Credit balance by day');
    expect(html).toContain('href="/subscription/history.csv"');
    const zh = await signedIn(user, { 'accept-language': 'zh-HK' });
    const zhHtml = await (await zh.get('/subscription')).text();
    expect(zhHtml).toContain('點數記錄');
    expect(zhHtml).toContain('已發放每月點數');
  });

  it('pages the history 20 at a time with plain links', async () => {
    const user = await createUser(sql, 'page-links');
    await purchaseTopUp(user.id, `cs_pl_${user.id}`, 50);
    await reserve(
      user.id,
      Array.from({ length: 21 }, (_, i) => ({ key: `${user.id}:pl:${i}`, amount: 1 })),
    );
    const client = await signedIn(user, { 'accept-language': 'en' });
    const page1 = await (await client.get('/subscription')).text();
    expect(page1).toContain('Page 1 of 2');
    expect(page1.includes(`href="/subscription?historyPage=2#credit-history"`)).toBe(true);
    const page2 = await (await client.get('/subscription?historyPage=2')).text();
    expect(page2).toContain('Page 2 of 2');
    expect(page2).toContain('Top-up credits purchased');
  });

  it("the CSV download holds only the user's own rows", async () => {
    const user = await createUser(sql, 'csv');
    await grantSignupCredits(user.id, sql);
    await purchaseTopUp(user.id, `cs_csv_${user.id}`, 99);
    const client = await signedIn(user, { 'accept-language': 'en' });
    const res = await client.get('/subscription/history.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const lines = (await res.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Date (UTC),Activity,Credits,Change,Balance after');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z,Monthly credits granted,Monthly,5,5$/),
      expect.stringMatching(/,Top-up credits purchased,Top-up,99,104$/),
    ]);
    const signedOut = await new TestClient(app.url).get('/subscription/history.csv');
    expect(signedOut.status).toBe(302);
  });
});

describe('/admin/ledger', () => {
  it('is a 404 for signed-out users and non-admins', async () => {
    expect((await new TestClient(app.url).get('/admin/ledger')).status).toBe(404);
    const user = await createUser(sql, 'not-admin');
    const client = await signedIn(user);
    expect((await client.get('/admin/ledger')).status).toBe(404);
    expect((await client.get('/admin/ledger/export.csv')).status).toBe(404);
    expect((await client.get('/admin/ledger/manifest.json')).status).toBe(404);
  });

  it('gives an admin the export download, its manifest and the verify report', async () => {
    const admin = await createUser(sql, 'admin');
    await sql`UPDATE users SET role = 'admin' WHERE id = ${admin.id}`;
    const subject = await createUser(sql, 'audited');
    await grantSignupCredits(subject.id, sql);
    await purchaseTopUp(subject.id, `cs_audit_${subject.id}`, 360);
    const client = await signedIn(admin, { 'accept-language': 'en' });
    const page = await client.get('/admin/ledger');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/admin/ledger/export.csv"');
    const until = /name="until" value="(\d+)"/.exec(html)![1]!;
    const csv = await client.get(`/admin/ledger/export.csv?user=${encodeURIComponent(subject.email)}&until=${until}`);
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]!.startsWith('seq,id,time,user_id,user_email,kind')).toBe(true);
    expect(lines[2]).toContain(`,${subject.email},topup_purchase,system:sales,user:topup,360,365,`);
    const manifest = await (
      await client.get(`/admin/ledger/manifest.json?user=${encodeURIComponent(subject.email)}&until=${until}`)
    ).json();
    expect(manifest).toMatchObject({ rows: 2, sumsByKind: { monthly_grant: 5, topup_purchase: 360 } });
    expect(manifest.lastHash).toBe(lines[2]!.split(',')[13]);
    expect((await client.get('/admin/ledger/export.csv?from=not-a-date')).status).toBe(400);
    const verify = await (await client.get('/admin/ledger?verify=1')).text();
    expect(verify).toContain('data-testid="ledger-verify-report"');
  });

  it('shows the finance flags, open and acknowledged, and the latest payments with their money', async () => {
    const admin = await createUser(sql, 'flags-admin');
    await sql`UPDATE users SET role = 'admin' WHERE id = ${admin.id}`;
    const buyer = await createUser(sql, 'flags-buyer');
    await grantSignupCredits(buyer.id, sql);
    const session = `cs_flags_${buyer.id}`;
    // The stored webhook event the booking came from: the run's database is shared, and the
    // billing files reconcile all of it (a row with Stripe money and no event is unmatched).
    await sql`INSERT INTO billing_events (id, type, payload, received_at, processed_at, outcome)
      VALUES (${`evt_flags_${buyer.id}`}, 'checkout.session.completed',
        ${sql.json({
          id: `evt_flags_${buyer.id}`,
          object: 'event',
          type: 'checkout.session.completed',
          data: {
            object: {
              id: session,
              object: 'checkout.session',
              mode: 'payment',
              payment_status: 'paid',
              payment_intent: `pi_flags_${buyer.id}`,
              amount_total: 10000,
              currency: 'usd',
            },
          },
        } as never)}, now(), now(), 'applied')`;
    const row = await purchaseTopUp(
      buyer.id,
      session,
      360,
      {
        event: `evt_flags_${buyer.id}`,
        checkoutSession: session,
        paymentIntent: `pi_flags_${buyer.id}`,
        currency: 'usd',
        amountMinor: 10000,
      },
      sql,
    );
    // Two refund steps of one $100 charge, as flags written before they named their step: $50, then
    // $25 more (Stripe's running total 7500). The amount column shows each step; the total is named apart.
    await sql`
      INSERT INTO billing_finance_flags (ref, user_id, kind, detail)
      VALUES (${`refund:ch_flags_${buyer.id}@5000`}, ${buyer.id}, 'topup_refund',
        ${sql.json({ charge: `ch_flags_${buyer.id}`, amountRefunded: 5000, currency: 'usd', intended: 180, reversed: 180, shortfall: 0 } as never)})`;
    const [flag] = await sql<{ id: string }[]>`
      INSERT INTO billing_finance_flags (ref, user_id, kind, detail)
      VALUES (${`refund:ch_flags_${buyer.id}@7500`}, ${buyer.id}, 'topup_refund',
        ${sql.json({ charge: `ch_flags_${buyer.id}`, amountRefunded: 7500, currency: 'usd', intended: 90, reversed: 30, shortfall: 60 } as never)})
      RETURNING id`;
    const client = await signedIn(admin, { 'accept-language': 'en' });

    // An admin finds the page from the account menu; a user does not see the link.
    const home = await (await client.get('/subscription')).text();
    expect(home).toContain('href="/admin/ledger"');
    const user = await signedIn(buyer, { 'accept-language': 'en' });
    expect(await (await user.get('/subscription')).text()).not.toContain('href="/admin/ledger"');

    const html = await (await client.get('/admin/ledger')).text();
    const flagRow = new RegExp(`<tr data-flag-id="${flag!.id}">.*?</tr>`, 's').exec(html)![0];
    expect(flagRow).toContain('Top-up refunded');
    expect(flagRow).toContain(buyer.email);
    expect(flagRow).toContain('data-amount-minor="2500"');
    expect(flagRow).toContain('$25.00 (2500)');
    expect(flagRow).not.toContain('data-amount-minor="7500"');
    expect(flagRow).toContain('data-cumulative-minor="7500"');
    expect(flagRow).toContain('$75.00 (7500)');
    expect(flagRow).toContain('>60<');
    expect(html).toContain('Refunded so far');
    // The same amounts, formatted the same way, in Chinese.
    const zh = await (await (await signedIn(admin, { 'accept-language': 'zh-HK' })).get('/admin/ledger')).text();
    const zhRow = new RegExp(`<tr data-flag-id="${flag!.id}">.*?</tr>`, 's').exec(zh)![0];
    expect(zhRow).toContain('US$25.00 (2500)');
    expect(zhRow).toContain('US$75.00 (7500)');
    expect(zh).toContain('累計已退款');
    expect(flagRow).toContain('name="flagId"');
    expect(html).toContain(`data-currency="usd" data-amount-minor="10000"`);
    expect(html).toContain(`${session} pi_flags_${buyer.id} evt_flags_${buyer.id}`);
    // The CSV carries the same money and ids.
    const csv = (await (await client.get(`/admin/ledger/export.csv?user=${encodeURIComponent(buyer.email)}`)).text()).trim().split('\n');
    expect(csv.at(-1)).toContain(`,${row.hash},usd,10000,evt_flags_${buyer.id},${session},,pi_flags_${buyer.id},`);

    // Acknowledge (a plain form post, no JavaScript): it moves to the acknowledged list, with who.
    const ack = await client.postForm('/admin/ledger', { intent: 'acknowledge', flagId: flag!.id });
    expect(ack.status).toBe(302);
    expect(ack.headers.get('location')).toBe('/admin/ledger#finance-flags');
    const open = await (await client.get('/admin/ledger')).text();
    expect(open).not.toContain(`data-flag-id="${flag!.id}"`);
    const done = await (await client.get('/admin/ledger?flags=acknowledged')).text();
    const doneRow = new RegExp(`<tr data-flag-id="${flag!.id}">.*?</tr>`, 's').exec(done)![0];
    expect(doneRow).toContain(`Acknowledged by ${admin.email}`);
    expect(doneRow).not.toContain('name="flagId"');
    const [stored] = await sql<{ by: string }[]>`SELECT acknowledged_by AS by FROM billing_finance_flags WHERE id = ${flag!.id}`;
    expect(stored!.by).toBe(admin.id);
    // An unknown flag: a clear message, nothing changed; a non-admin gets a 404.
    const bad = await client.postForm('/admin/ledger', { intent: 'acknowledge', flagId: '999999999' });
    expect(bad.status).toBe(302);
    expect(await (await client.get('/admin/ledger')).text()).toContain('That flag could not be acknowledged');
    expect((await user.postForm('/admin/ledger', { intent: 'acknowledge', flagId: flag!.id })).status).toBe(404);
  });
});
