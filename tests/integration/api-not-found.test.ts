import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

// Fails without app/routes/api.$.ts: unknown API paths answered the HTML not-found page.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('unknown /api/* paths', () => {
  it.each([
    ['GET', '/api/nope'],
    ['GET', '/api/credits/history/extra'],
    ['POST', '/api/does-not-exist'],
    ['DELETE', '/api/nope/deeper'],
  ])('%s %s answers JSON 404', async (method, path) => {
    const c = new TestClient(app.url);
    const res = await c.request(path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : '{}',
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'Not found' });
  });

  it('other unknown paths still get the HTML not-found page', async () => {
    const res = await new TestClient(app.url).get('/nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
