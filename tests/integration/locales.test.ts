import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('the browser catalogue script', () => {
  it('is linked from the page by content hash, cached for good under it, and holds the page language only', async () => {
    const c = new TestClient(app.url, { 'accept-language': 'zh-HK' });
    const html = await (await c.get('/auth')).text();
    const src = /<script nonce="[^"]+" src="(\/locales\/zh-HK\?ns=common,auth&amp;v=[0-9a-f]{12})"/.exec(html)?.[1]?.replace('&amp;', '&');
    expect(src).toBeTruthy();
    // The catalogue no longer rides in the loader data of every page.
    expect(html).not.toContain('"resources"');
    const res = await c.get(src!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    const body = await res.text();
    expect(body.startsWith('(function(w){var c=w.__postforgeI18n=w.__postforgeI18n||{};var l=c["zh-HK"]=')).toBe(true);
    expect(body).not.toContain('<');
    expect(body).toContain('"common"');
    expect(body).toContain('"auth"');
    expect(body).not.toContain('"ledger"');
  });

  it('carries only the namespaces of the page (the landing page loads common alone)', async () => {
    const c = new TestClient(app.url);
    const srcOf = async (path: string) => /src="(\/locales\/en\?ns=[^"&]*)&amp;v=/.exec(await (await c.get(path)).text())?.[1];
    expect(await srcOf('/')).toBe('/locales/en?ns=common');
    expect(await srcOf('/forgot-password')).toBe('/locales/en?ns=common,auth');
    expect(await srcOf('/no-such-page')).toBe('/locales/en?ns=common');
    const landing = await (await c.get('/locales/en?ns=common')).text();
    const everything = await (await c.get('/locales/en')).text();
    expect(landing).toContain('"common"');
    expect(landing).not.toContain('"auth"');
    for (const ns of ['common', 'auth', 'ledger', 'generation', 'inputs', 'billing', 'wordpress']) expect(everything).toContain(`"${ns}"`);
    expect(everything).not.toContain('"linkFallback"'); // the e-mail texts stay on the server
    // Unknown names are ignored.
    expect(await (await c.get('/locales/en?ns=email,nope')).text()).toBe(everything);
  });

  it('is not cached under a stale hash, and unknown languages are 404', async () => {
    const c = new TestClient(app.url);
    expect((await c.get('/locales/en?v=old')).headers.get('cache-control')).toBe('no-cache');
    expect((await c.get('/locales/fr')).status).toBe(404);
  });
});
