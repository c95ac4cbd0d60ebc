import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { toastHeader } from '../../app/http/toast.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** A client signed in as a fresh user (session row inserted directly, as a browser would hold it). */
async function signedInClient(status: 'free' | 'pro' | 'canceled' = 'free', name = 'Ada Lovelace') {
  const email = `pages-${crypto.randomUUID()}@example.com`;
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${email}, ${name}, ${status}) RETURNING id`;
  const { setCookie } = await createSession(user!.id);
  const client = new TestClient(app.url);
  const [pair] = setCookie.split(';');
  const eq = pair!.indexOf('=');
  client.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
  return { client, userId: user!.id, email };
}

const htmlLang = (html: string) => /<html[^>]*\blang="([^"]+)"/.exec(html)?.[1];
/** The rendered markup only: without React's text separators and the scripts (which carry the catalogue). */
const text = (html: string) => html.replace(/<!--.*?-->/g, '').replace(/<script\b[\s\S]*?<\/script>/g, '');

describe('landing page', () => {
  it('renders every section in English by default', async () => {
    const res = await new TestClient(app.url).get('/');
    expect(res.status).toBe(200);
    const html = text(await res.text());
    expect(htmlLang(html)).toBe('en');
    for (const s of [
      'ready-to-publish blog posts',
      'Key features',
      'Bulk processing',
      'Multiple languages',
      'Advanced customization',
      'AI image generation',
      'WordPress integration',
      'Multiple AI providers',
      'How it works',
      'Monthly subscription',
      'Top-up packs',
      '5 credits per month',
      '45 credits per month',
      'Start writing at scale today',
      'Bulk AI content for bloggers and marketers, ready to publish.',
    ]) {
      expect(html).toContain(s);
    }
    // Four steps, and the three top-up packs of the catalogue (the first is 100 credits: docs/finance.md, Billing).
    expect(html.match(/<ol[\s\S]*?<\/ol>/)?.[0].match(/<li/g)).toHaveLength(4);
    for (const [credits, price] of [
      ['100', '$30'],
      ['360', '$100'],
      ['1,170', '$300'],
    ]) {
      expect(html).toMatch(new RegExp(`${credits}</p>[\\s\\S]{0,200}?\\${price}`));
    }
    // Signed out: a login/register link to /auth and get-started buttons to the register tab.
    expect(html).toMatch(/href="\/auth"[^>]*>Log in \/ Register</);
    expect(html).toContain('href="/auth?tab=register"');
    expect(html).not.toContain('href="/app"');
    // The language switcher posts to /language.
    expect(html).toMatch(/<form[^>]*method="post"[^>]*action="\/language"/);
    expect(html).toMatch(/aria-pressed="true"[^>]*>(?:(?!<\/button>)[\s\S])*>English</);
  });

  it.each(['zh', 'zh-Hant', 'zh-TW', 'zh-HK', 'zh-Hant-HK,en;q=0.5', 'fr;q=1, zh-TW;q=0.8, en;q=0.5'])(
    'renders Traditional Chinese for Accept-Language %s',
    async (accept) => {
      const res = await new TestClient(app.url).get('/', { 'accept-language': accept });
      const html = text(await res.text());
      expect(htmlLang(html)).toBe('zh-HK');
      expect(html).toContain('主要功能');
      expect(html).toContain('批量處理');
      expect(html).toMatch(/aria-pressed="true"[^>]*>(?:(?!<\/button>)[\s\S])*>繁體中文</);
    },
  );

  it('prefers the language cookie over Accept-Language', async () => {
    const zh = await new TestClient(app.url).get('/', { cookie: 'language=zh-HK', 'accept-language': 'en-US' });
    const zhHtml = await zh.text();
    expect(htmlLang(zhHtml)).toBe('zh-HK');
    expect(zhHtml).toContain('運作方式');
    const en = await new TestClient(app.url).get('/', { cookie: 'language=en', 'accept-language': 'zh-HK' });
    expect(htmlLang(await en.text())).toBe('en');
  });

  it('serves cached copies with a fresh CSP nonce each time', async () => {
    const c = new TestClient(app.url);
    const first = await c.get('/', { 'accept-language': 'en' });
    const firstHtml = await first.text();
    const second = await c.get('/', { 'accept-language': 'en' });
    const secondHtml = await second.text();
    const nonceOf = (res: Response) => /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    const n1 = nonceOf(first)!;
    const n2 = nonceOf(second)!;
    expect(n1).not.toBe(n2);
    // The anonymous landing page sets no cookie, so server.ts may serve it from its cache.
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(second.headers.get('x-page-cache')).toBe('hit');
    expect(firstHtml).toContain(`nonce="${n1}"`);
    expect(secondHtml).toContain(`nonce="${n2}"`);
    expect(secondHtml).not.toContain(n1);
    // Apart from the nonce the anonymous page is identical: nothing per request leaks into it.
    expect(secondHtml.replaceAll(n2, 'N')).toBe(firstHtml.replaceAll(n1, 'N'));
  });

  it('shows a dashboard button to signed-in users instead of the login link', async () => {
    const { client } = await signedInClient();
    const html = text(await (await client.get('/')).text());
    expect(html).toContain('href="/app"');
    expect(html).toContain('Dashboard');
    expect(html).not.toContain('Log in / Register');
  });
});

describe('language switch', () => {
  it('sets the cookie and redirects back (303), and the next page is in that language', async () => {
    const c = new TestClient(app.url);
    const res = await c.postForm('/language', { language: 'zh-HK', redirectTo: '/?from=test' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?from=test');
    expect(res.headers.get('set-cookie')).toMatch(/^language=zh-HK;.*Path=\//);
    expect(c.cookies.get('language')).toBe('zh-HK');
    const html = await (await c.get('/', { 'accept-language': 'en' })).text();
    expect(htmlLang(html)).toBe('zh-HK');

    const back = await c.postForm('/language', { language: 'en', redirectTo: '/' });
    expect(back.status).toBe(303);
    expect(c.cookies.get('language')).toBe('en');
  });

  it('goes home when no redirectTo is given', async () => {
    const res = await new TestClient(app.url).postForm('/language', { language: 'en' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
  });

  it.each(['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)'])(
    'rejects the external redirectTo %s',
    async (redirectTo) => {
      const c = new TestClient(app.url);
      const res = await c.postForm('/language', { language: 'zh-HK', redirectTo });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(c.cookies.has('language')).toBe(false);
    },
  );

  it('sends a stray GET home', async () => {
    const res = await new TestClient(app.url).get('/language');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
  });

  it('rejects an unsupported language', async () => {
    const res = await new TestClient(app.url).postForm('/language', { language: 'fr', redirectTo: '/' });
    expect(res.status).toBe(400);
  });

  it("saves a signed-in user's choice on the account", async () => {
    const { client, userId } = await signedInClient();
    const res = await client.postForm('/language', { language: 'zh-HK', redirectTo: '/app' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/app');
    const [row] = await sql<{ language: string }[]>`SELECT language FROM users WHERE id = ${userId}`;
    expect(row!.language).toBe('zh-HK');
  });
});

describe('protected pages', () => {
  it.each(['/app', '/subscription', '/wordpress'])('%s redirects to / when signed out', async (path) => {
    const res = await new TestClient(app.url).get(path);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
  });

  it('the workspace shows the header with the Free badge, the balance and the account menu', async () => {
    const { client, email } = await signedInClient('free', 'Grace Hopper');
    const res = await client.get('/app');
    expect(res.status).toBe(200);
    const html = text(await res.text());
    expect(html).toContain('Welcome, Grace Hopper');
    expect(html).toMatch(/href="\/app"[^>]*>Text</);
    expect(html).toMatch(/href="\/subscription"[^>]*>Subscription</);
    expect(html).toMatch(/>Free<\/span>/);
    expect(html).not.toContain('>Guest<');
    expect(html).toMatch(/data-testid="credit-balance"[\s\S]*?\d+ credits?</);
    // My Account: the account's own settings (keys, defaults, API tokens, webhooks) in the settings dialog.
    expect(html).toMatch(/<a[^>]*href="\/app\?settings=1"[^>]*>(<svg[\s\S]*?<\/svg>)?My Account<\/a>/);
    expect(html).toContain(email);
    expect(html).toMatch(/<a(?=[^>]*aria-current="page")[^>]*href="\/app"[^>]*>Text</);
    // In image mode the "Text" item is not the current page.
    const image = text(await (await client.get('/app?type=image')).text());
    expect(image).toMatch(/<a(?=[^>]*aria-current="false")[^>]*href="\/app"[^>]*>Text</);
    expect(image).not.toMatch(/<a(?=[^>]*aria-current="page")[^>]*href="\/app"[^>]*>Text</);
    expect(html).toMatch(/<form[^>]*method="post"[^>]*action="\/logout"[\s\S]*?Logout/);
    expect(html).toMatch(/<form[^>]*action="\/language"/);
    expect(html).toMatch(/href="\/app\?settings=1"/);
    // Menus open without JavaScript: the account menu and the compact (< 768 px) menu are <details>.
    expect(html.match(/<details[^>]*>\s*<summary/g)?.length).toBe(2);
    expect(html).toContain('md:hidden');
    for (const tab of ['Input', 'Results', 'WordPress integration']) expect(html).toContain(tab);
    // A free user sees the upgrade prompt in the integration tab.
    const wp = text(await (await client.get('/app?tab=wordpress')).text());
    expect(wp).toContain('WordPress integration is a Pro feature');
    expect(wp).toContain('href="/subscription"');
  });

  it('shows the Pro and Pro (Ending) badges', async () => {
    const pro = await signedInClient('pro');
    expect(text(await (await pro.client.get('/subscription')).text())).toMatch(/>Pro<\/span>/);
    const ending = await signedInClient('canceled');
    const html = text(await (await ending.client.get('/wordpress')).text());
    expect(html).toContain('Pro (Ending)');
    expect(html).toContain('Sites');
  });

  it('the subscription page shows the plan and the credit figures', async () => {
    const { client } = await signedInClient();
    const html = text(await (await client.get('/subscription')).text());
    expect(html).toContain('Current plan');
    for (const id of ['monthly-credits', 'topup-credits', 'total-credits']) {
      expect(html).toMatch(new RegExp(`data-testid="${id}">\\d[\\d,]*<`));
    }
  });

  it('renders the settings dialog from the URL, with a close link', async () => {
    const { client } = await signedInClient();
    const html = text(await (await client.get('/app?tab=results&settings=1')).text());
    // Open in the server's HTML (no script needed); the page's script makes it modal (showModal).
    expect(html).toMatch(/<dialog open=""[^>]*aria-labelledby="[^"]+"/);
    expect(html).toContain('>Settings</h2>');
    expect(html).toContain('href="/app?tab=results"');
    const closed = text(await (await client.get('/app?tab=results')).text());
    expect(closed).not.toContain('<dialog');
  });

  it('renders the header in Traditional Chinese', async () => {
    const { client } = await signedInClient('free', '陳大文');
    client.cookies.set('language', 'zh-HK');
    const html = text(await (await client.get('/app')).text());
    expect(htmlLang(html)).toBe('zh-HK');
    expect(html).toContain('歡迎，陳大文');
    expect(html).toContain('我的帳戶');
    expect(html).toMatch(/>免費<\/span>/);
  });
});

describe('not-found page', () => {
  // (Unknown /api/* paths answer JSON: tests/integration/api-not-found.test.ts.)
  it.each(['/no-such-page', '/app/nothing/here'])('%s answers 404 with both texts', async (path) => {
    const res = await new TestClient(app.url).get(path);
    expect(res.status).toBe(404);
    const html = text(await res.text());
    expect(html).toContain('404 Page Not Found');
    expect(html).toContain('Did you forget to add the page to the router?');
  });

  it('is translated', async () => {
    const res = await new TestClient(app.url).get('/missing', { 'accept-language': 'zh-HK' });
    expect(res.status).toBe(404);
    const html = text(await res.text());
    expect(html).toContain('404 找不到頁面');
    expect(html).toContain('你是否忘記將此頁面加入路由？');
  });
});

describe('page views', () => {
  const latest = async () => (await sql`SELECT * FROM page_views ORDER BY id DESC LIMIT 1`)[0] as Record<string, unknown> | undefined;

  it('stores a beacon sent as text/plain, without query string or IP, and answers 204', async () => {
    const c = new TestClient(app.url, { 'accept-language': 'zh-TW' });
    const res = await c.request('/api/analytics/pageview', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ path: '/reset-password?token=secret&email=a@b.c', referrer: 'https://news.example/story?id=7#top' }),
    });
    expect(res.status).toBe(204);
    const row = await latest();
    expect(row).toMatchObject({ path: '/reset-password', referrer: 'https://news.example/story', language: 'zh-HK', signed_in: false });
    expect(Object.keys(row!).sort()).toEqual(['created_at', 'id', 'language', 'path', 'referrer', 'signed_in']);
    expect(JSON.stringify(row)).not.toContain('127.0.0.1');
  });

  it('accepts JSON and records the signed-in state', async () => {
    const { client } = await signedInClient();
    const res = await client.postJson('/api/analytics/pageview', { path: '/app', referrer: '' });
    expect(res.status).toBe(204);
    expect(await latest()).toMatchObject({ path: '/app', referrer: null, signed_in: true, language: 'en' });
  });

  it('refuses GET', async () => {
    expect((await new TestClient(app.url).get('/api/analytics/pageview')).status).toBe(405);
  });

  it.each([
    ['malformed JSON', 'text/plain', '{"path":'],
    ['a missing path', 'application/json', JSON.stringify({ referrer: 'https://x.example/' })],
    ['a relative path', 'application/json', JSON.stringify({ path: 'app' })],
    ['a protocol-relative path', 'application/json', JSON.stringify({ path: '//evil.example/' })],
    ['a path over 512 characters', 'application/json', JSON.stringify({ path: `/${'a'.repeat(600)}` })],
    ['a non-string referrer', 'application/json', JSON.stringify({ path: '/', referrer: 42 })],
    ['a JSON array', 'application/json', '[]'],
    ['a form body', 'application/x-www-form-urlencoded', 'path=%2F'],
  ])('answers 400 to %s', async (_name, type, body) => {
    const before = (await sql`SELECT count(*)::int AS n FROM page_views`)[0]!.n;
    const res = await new TestClient(app.url).request('/api/analytics/pageview', {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    expect(res.status).toBe(400);
    const after = (await sql`SELECT count(*)::int AS n FROM page_views`)[0]!.n;
    expect(after).toBe(before);
  });
});

describe('toasts', () => {
  it('shows a flash toast once, server-rendered with role="status", then consumes it', async () => {
    const { client } = await signedInClient();
    const cookie = await toastHeader({ type: 'success', title: 'Template saved', description: 'All good here' });
    const [pair] = cookie.split(';');
    client.cookies.set('toast', pair!.slice(pair!.indexOf('=') + 1));
    const first = await client.get('/app');
    const html = await first.text();
    expect(html).toMatch(/role="status"[\s\S]*Template saved[\s\S]*All good here/);
    expect(client.cookies.has('toast')).toBe(false);
    const again = text(await (await client.get('/app')).text());
    expect(again).not.toContain('Template saved');
  });

  it('works on the landing page too (not served from the anonymous cache)', async () => {
    const c = new TestClient(app.url);
    const cookie = await toastHeader({ type: 'info', title: 'Logged out' });
    const [pair] = cookie.split(';');
    c.cookies.set('toast', pair!.slice(pair!.indexOf('=') + 1));
    expect(text(await (await c.get('/')).text())).toMatch(/role="status"[\s\S]*Logged out/);
    expect(text(await (await c.get('/')).text())).not.toContain('Logged out');
  });
});
