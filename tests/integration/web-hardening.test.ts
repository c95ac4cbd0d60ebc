import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { LIMITS, maxFor } from '../../app/services/rate-limit.server';
import { MAX_PAGE_VIEW_BODY, PAGE_VIEW_RETENTION_DAYS } from '../../app/services/analytics.server';
import { toastHeader } from '../../app/http/toast.server';
import { handleMaintenancePurge } from '../../jobs/handlers/maintenance';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

// Security and faults, cookie parsing and the landing cache: each case here
// failed before the fix.

let app: TestApp;
const previousTrustProxy = process.env.TRUST_PROXY;
beforeAll(async () => {
  process.env.TRUST_PROXY = 'loopback';
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  if (previousTrustProxy === undefined) delete process.env.TRUST_PROXY;
  else process.env.TRUST_PROXY = previousTrustProxy;
});

let ipCounter = 0;
const uniqueIp = () => `203.0.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;
const APP_URL = 'http://localhost:3999';

async function signedInClient(name = 'Ada Lovelace') {
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name) VALUES (${`hard-${crypto.randomUUID()}@example.com`}, ${name}) RETURNING id`;
  const { setCookie } = await createSession(user!.id);
  const client = new TestClient(app.url, { 'x-forwarded-for': uniqueIp() });
  const [pair] = setCookie.split(';');
  client.cookies.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
  return { client, userId: user!.id };
}

describe('malformed cookies are ignored', () => {
  it.each(['/', '/auth', '/forgot-password', '/reset-password', '/app', '/subscription', '/api/user', '/locales/en', '/nowhere'])(
    '%s with language=% answers as without it, never 500',
    async (path) => {
      for (const cookie of ['language=%', 'language=%E0%A4%A; tz=%', '__session=%; toast=%zz; language=%']) {
        const res = await new TestClient(app.url).get(path, { cookie });
        expect(res.status, `${path} ${cookie}`).toBeLessThan(500);
      }
    },
  );

  it('still answers a form post with a malformed cookie', async () => {
    const res = await new TestClient(app.url, { 'x-forwarded-for': uniqueIp() }).postForm(
      '/auth',
      { intent: 'login', email: 'x@example.com', password: 'wrong-pass' },
      { cookie: 'language=%' },
    );
    expect(res.status).toBe(401);
  });
});

describe('a malformed time zone cookie on the WordPress pages', () => {
  it('/wordpress and the publish pages answer in UTC, never 500', async () => {
    const { client, userId } = await signedInClient('Tz Tester');
    await sql`UPDATE users SET subscription_status = 'pro' WHERE id = ${userId}`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, 'text', 'm', 1) RETURNING id`;
    const [result] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
      VALUES (${userId}, ${run!.id}, 0, 'text', 'topic', 'Zoned title', '<p>Body</p>', 'completed', 'm', 1) RETURNING id`;
    const session = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const path of ['/wordpress', `/app/publish/${result!.id}?mode=schedule`, `/app/publish-bulk?ids=${result!.id}`]) {
      for (const tz of ['%', '%E0%A4%A', 'Not%2FA_Zone', encodeURIComponent('UTC<script>')]) {
        const res = await new TestClient(app.url, { 'x-forwarded-for': uniqueIp() }).get(path, { cookie: `${session}; tz=${tz}` });
        expect(res.status, `${path} tz=${tz}`).toBe(200);
      }
    }
  });
});

describe('refused origins', () => {
  it('Origin: null on an HTML form post is a translated 403 page, not a 500', async () => {
    const post = (language: string) =>
      fetch(app.url + '/auth', {
        method: 'POST',
        headers: { origin: 'null', 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', 'accept-language': language },
        body: 'intent=login&email=a%40example.com&password=secret1',
        redirect: 'manual',
      });
    const en = await post('en');
    expect(en.status).toBe(403);
    expect(en.headers.get('content-type')).toMatch(/text\/html/);
    expect(await en.text()).toContain('Request refused');
    const zh = await post('zh-HK');
    expect(zh.status).toBe(403);
    expect(await zh.text()).toContain('請求已被拒絕');
  });

  it('a refused JSON request gets a translated JSON 403', async () => {
    const res = await fetch(app.url + '/api/login', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', 'accept-language': 'zh-HK' },
      body: JSON.stringify({ email: 'a@example.com', password: 'secret1' }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: expect.stringContaining('Postforge') });
  });

  it('Origin: null with Sec-Fetch-Site: same-origin (a no-referrer page) is accepted', async () => {
    const res = await new TestClient(app.url, { 'x-forwarded-for': uniqueIp() }).postForm(
      '/auth',
      { intent: 'login', email: 'nobody@example.com', password: 'wrong-pass' },
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    );
    expect(res.status).toBe(401);
  });

  it('accepts a post whose Origin is APP_URL whatever Host the proxy sent', async () => {
    const ip = uniqueIp();
    for (const host of ['internal-upstream:8080', '10.0.0.7', 'localhost:3999']) {
      const res = await new TestClient(app.url, { 'x-forwarded-for': ip }).postForm(
        '/auth',
        { intent: 'login', email: 'nobody@example.com', password: 'wrong-pass' },
        { origin: APP_URL, host },
      );
      expect(res.status, host).toBe(401);
    }
    // A foreign origin is still refused, whatever the Host.
    const evil = await new TestClient(app.url).postForm(
      '/auth',
      { intent: 'login' },
      { origin: 'https://evil.example', host: 'evil.example' },
    );
    expect(evil.status).toBe(403);
  });
});

describe('signed-in answers are private, no-store', () => {
  it.each(['/', '/app', '/subscription', '/app?_data=routes%2Fapp', '/api/user', '/api/credits/history', '/subscription/history.csv'])(
    '%s',
    async (path) => {
      const { client } = await signedInClient();
      const res = await client.get(path);
      expect(res.status, path).toBeLessThan(400);
      expect(res.headers.get('cache-control'), path).toBe('private, no-store');
    },
  );

  it('static assets stay cacheable for a signed-in browser', async () => {
    const { client } = await signedInClient();
    const res = await client.get('/favicon.svg');
    expect(res.headers.get('cache-control')).not.toMatch(/no-store/);
  });
});

describe('the cached landing page', () => {
  it("never shows a signed-in user's name or a toast to another visitor", async () => {
    const marker = `Leaky ${crypto.randomBytes(4).toString('hex')}`;
    const { client } = await signedInClient(marker);
    const toastClient = new TestClient(app.url);
    const cookie = await toastHeader({ type: 'info', title: `Toast ${marker}` });
    const [pair] = cookie.split(';');
    toastClient.cookies.set('toast', pair!.slice(pair!.indexOf('=') + 1));

    for (const language of ['en', 'zh-HK']) {
      // Personal renders first, then anonymous ones (a miss and a hit), then personal again.
      expect(await (await client.get('/', { 'accept-language': language })).text()).toContain(marker);
      const anonymous = new TestClient(app.url, { 'accept-language': language });
      const first = await anonymous.get('/');
      const second = await anonymous.get('/');
      expect(second.headers.get('x-page-cache')).toBe('hit');
      for (const res of [first, second]) expect(await res.text()).not.toContain(marker);
      expect(await (await client.get('/', { 'accept-language': language })).text()).toContain(marker);
    }
    expect(await (await toastClient.get('/')).text()).toContain(`Toast ${marker}`);
    const after = await new TestClient(app.url).get('/');
    expect(after.headers.get('x-page-cache')).toBe('hit');
    expect(await after.text()).not.toContain(marker);
    // A signed-in page is never a cache hit.
    expect((await client.get('/')).headers.get('x-page-cache')).toBeNull();
  });

  it('keeps the time zone of each visitor out of another visitor’s page', async () => {
    const hk = await (await new TestClient(app.url).get('/', { cookie: 'tz=Asia/Hong_Kong' })).text();
    const plain = await (await new TestClient(app.url).get('/')).text();
    expect(hk).toContain('Asia/Hong_Kong');
    expect(plain).not.toContain('Asia/Hong_Kong');
  });
});

describe('page views are bounded', () => {
  const send = (c: TestClient, body: string) =>
    c.request('/api/analytics/pageview', { method: 'POST', headers: { 'content-type': 'text/plain' }, body });

  it(`limits each client to ${LIMITS.pageviewIp.max} a minute`, async () => {
    const c = new TestClient(app.url, { 'x-forwarded-for': uniqueIp() });
    const max = maxFor('pageviewIp');
    for (let i = 0; i < max; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, max - i) }, () => send(c, JSON.stringify({ path: '/' }))));
      for (const res of batch) expect(res.status).toBe(204);
    }
    const over = await send(c, JSON.stringify({ path: '/' }));
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another client is not affected.
    expect((await send(new TestClient(app.url, { 'x-forwarded-for': uniqueIp() }), JSON.stringify({ path: '/' }))).status).toBe(204);
  });

  it('caps the body and every field', async () => {
    const c = () => new TestClient(app.url, { 'x-forwarded-for': uniqueIp() });
    expect((await send(c(), JSON.stringify({ path: '/', referrer: `https://x.example/${'a'.repeat(MAX_PAGE_VIEW_BODY)}` }))).status).toBe(
      413,
    );
    expect((await send(c(), JSON.stringify({ path: `/${'a'.repeat(1100)}` }))).status).toBe(400);
    const res = await send(c(), JSON.stringify({ path: '/', referrer: `https://x.example/${'r'.repeat(900)}` }));
    expect(res.status).toBe(204);
    const [row] = await sql<{ referrer: string }[]>`SELECT referrer FROM page_views ORDER BY id DESC LIMIT 1`;
    expect(row!.referrer.length).toBeLessThanOrEqual(512);
  });

  it(`are purged after ${PAGE_VIEW_RETENTION_DAYS} days by the hourly maintenance job`, async () => {
    const tag = `/purge-${crypto.randomBytes(4).toString('hex')}`;
    await sql`INSERT INTO page_views (path, language, signed_in, created_at) VALUES
      (${tag + '-old'}, 'en', false, now() - make_interval(days => ${PAGE_VIEW_RETENTION_DAYS + 1})),
      (${tag + '-new'}, 'en', false, now() - make_interval(days => ${PAGE_VIEW_RETENTION_DAYS - 1}))`;
    await handleMaintenancePurge();
    const left = await sql<{ path: string }[]>`SELECT path FROM page_views WHERE path LIKE ${tag + '%'}`;
    expect(left.map((r) => r.path)).toEqual([tag + '-new']);
  });
});

describe('the balance chart of a new account', () => {
  it('starts at the first ledger day in the reader time zone, not 89 days at zero', async () => {
    const { balanceSeriesSince, grantSignupCredits } = await import('../../app/services/ledger.server');
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name) VALUES (${`chart-${crypto.randomUUID()}@example.com`}, 'Chart') RETURNING id`;
    expect(await balanceSeriesSince(user!.id)).toEqual([]);
    await grantSignupCredits(user!.id);
    const today = await balanceSeriesSince(user!.id);
    expect(today).toHaveLength(1);
    expect(today[0]!.balance).toBeGreaterThan(0);
    // Ten days later (same rows): eleven days, none before the first row.
    const later = await balanceSeriesSince(user!.id, { timeZone: 'Asia/Hong_Kong', now: new Date(Date.now() + 10 * 86_400_000) });
    expect(later).toHaveLength(11);
    expect(later.every((p) => p.balance === today[0]!.balance)).toBe(true);
    // At most maxDays.
    expect(await balanceSeriesSince(user!.id, { maxDays: 5, now: new Date(Date.now() + 30 * 86_400_000) })).toHaveLength(5);
  });

  it('counts days in the reader time zone', async () => {
    const { balanceSeriesSince, grantSignupCredits } = await import('../../app/services/ledger.server');
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name) VALUES (${`chart-tz-${crypto.randomUUID()}@example.com`}, 'Chart TZ') RETURNING id`;
    await grantSignupCredits(user!.id);
    const [{ created }] = (await sql`SELECT min(created_at) AS created FROM ledger_entries WHERE user_id = ${user!.id}`) as unknown as [
      { created: Date },
    ];
    for (const timeZone of ['UTC', 'Asia/Hong_Kong', 'America/Los_Angeles']) {
      const [point] = await balanceSeriesSince(user!.id, { timeZone });
      expect(point!.day).toBe(new Intl.DateTimeFormat('en-CA', { timeZone }).format(created));
    }
  });
});
