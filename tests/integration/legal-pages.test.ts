import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

// Fails without the legal pages and footer links: /terms, /privacy and /contact were 404s and
// neither footer linked them.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const text = async (res: Response) => (await res.text()).replace(/<!--.*?-->/g, '');

describe('terms, privacy and contact', () => {
  it.each([
    ['/terms', 'Terms of Service', 'Stripe'],
    ['/privacy', 'Privacy Policy', 'Stripe'],
    ['/contact', 'Contact us', 'mailto:support@postforge.local'],
  ])('%s is a real page in English', async (path, title, detail) => {
    const res = await new TestClient(app.url).get(path);
    expect(res.status).toBe(200);
    const html = await text(res);
    expect(html).toContain(`<h1 class="text-3xl font-bold tracking-tight text-slate-900">${title}</h1>`);
    expect(html).toContain(detail);
    // The contact address is filled in (from CONTACT_EMAIL or MAIL_FROM), never a placeholder.
    expect(html).toContain('support@postforge.local');
    expect(html).not.toContain('{{email}}');
  });

  it.each([
    ['/terms', '服務條款'],
    ['/privacy', '私隱政策'],
    ['/contact', '聯絡我們'],
  ])('%s is in Traditional Chinese for a zh-HK visitor', async (path, title) => {
    const res = await new TestClient(app.url, { cookie: 'language=zh-HK' }).get(path);
    expect(res.status).toBe(200);
    const html = await text(res);
    expect(html).toContain(title);
    expect(html).toContain('<html lang="zh-HK"');
  });

  it('the landing page footer links all three', async () => {
    const html = await text(await new TestClient(app.url).get('/'));
    const footer = html.slice(html.lastIndexOf('<footer'));
    for (const href of ['/terms', '/privacy', '/contact']) expect(footer).toContain(`href="${href}"`);
  });

  it('the signed-in app shell footer links all three', async () => {
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name, password_hash) VALUES (${`legal-${Date.now()}@example.com`}, 'Legal Reader', 'x') RETURNING id`;
    const { setCookie } = await createSession(user!.id);
    const res = await new TestClient(app.url, { cookie: setCookie.split(';')[0]! }).get('/app');
    expect(res.status).toBe(200);
    const html = await text(res);
    const footer = html.slice(html.lastIndexOf('<footer'));
    for (const href of ['/terms', '/privacy', '/contact']) expect(footer).toContain(`href="${href}"`);
  });
});
