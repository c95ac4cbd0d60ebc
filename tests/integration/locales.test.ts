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
    const src = /<script nonce="[^"]+" src="(\/locales\/zh-HK\?v=[0-9a-f]{12})"/.exec(html)?.[1];
    expect(src).toBeTruthy();
    // The catalogue no longer rides in the loader data of every page.
    expect(html).not.toContain('"resources"');
    const res = await c.get(src!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    const body = await res.text();
    expect(body.startsWith('(window.__postforgeI18n=window.__postforgeI18n||{})["zh-HK"]=')).toBe(true);
    expect(body).not.toContain('<');
    expect(body).toContain('"common"');
  });

  it('is not cached under a stale hash, and unknown languages are 404', async () => {
    const c = new TestClient(app.url);
    expect((await c.get('/locales/en?v=old')).headers.get('cache-control')).toBe('no-cache');
    expect((await c.get('/locales/fr')).status).toBe(404);
  });
});
