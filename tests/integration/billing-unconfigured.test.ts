import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { createUser } from '../support/ledger';

// No STRIPE_* in this run's environment: billing says so instead of failing.
let app: TestApp;
beforeAll(async () => {
  for (const k of Object.keys(process.env)) if (k.startsWith('STRIPE_')) delete process.env[k];
  app = await startTestApp();
});
afterAll(() => app.close());

describe('billing without a payment provider', () => {
  it('answers "payment provider not configured (development mode)" and the page says so', async () => {
    const user = await createUser(sql, 'bill-dev');
    const client = new TestClient(app.url, { 'accept-language': 'en' });
    const { setCookie } = await createSession(user.id);
    const pair = setCookie.split(';')[0]!;
    client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));

    const res = await client.postJson('/api/subscription/checkout', { priceId: 'price_anything', language: 'en' });
    expect(res.status).toBe(503);
    expect((await res.json()).error).toBe('Payment provider not configured (development mode)');
    const plans = await (await client.get('/api/subscription/plans')).json();
    expect(plans.plans[1].priceId).toBeNull();
    expect(plans.topUpPlans.map((p: { price: number }) => p.price)).toEqual([30, 100, 300]);
    const html = await (await client.get('/subscription')).text();
    expect(html).toContain('Payment provider not configured (development mode)');
    expect(html).toMatch(/data-testid="subscribe-pro"[^>]*disabled|disabled[^>]*data-testid="subscribe-pro"/);
    const hook = await fetch(`${app.url}/webhooks/stripe`, { method: 'POST', headers: { 'stripe-signature': 't=1,v1=x' }, body: '{}' });
    expect(hook.status).toBe(503);
    expect((await client.postJson('/api/subscription/manual-upgrade', { sessionId: 'cs_test_1' })).status).toBe(503);
  });
});
