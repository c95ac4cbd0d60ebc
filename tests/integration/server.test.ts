import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('server', () => {
  it('answers /healthz and /readyz', async () => {
    const c = new TestClient(app.url);
    expect((await c.get('/healthz')).status).toBe(200);
    const ready = await c.get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.text()).toBe('ready');
  });

  it('refuses cross-site posts', async () => {
    const c = new TestClient(app.url);
    const res = await c.request('/', { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
  });
});
