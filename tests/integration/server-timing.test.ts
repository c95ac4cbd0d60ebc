/**
 * Server-Timing on page responses: the database time of the request's queries, the
 * loaders' phase and the render, so an operator sees in the browser's devtools where a page spent
 * its time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { newRequestScope, requestScope } from '../../app/runtime/request-scope.server';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** The header's metrics by name: duration and description. */
function metrics(header: string | null): Record<string, { dur: number; desc?: string }> {
  const out: Record<string, { dur: number; desc?: string }> = {};
  for (const part of (header ?? '').split(',').filter(Boolean)) {
    const [name, ...params] = part.trim().split(';');
    const dur = Number(/dur=([\d.]+)/.exec(params.join(';'))?.[1]);
    out[name!] = { dur, desc: /desc="([^"]*)"/.exec(params.join(';'))?.[1] };
  }
  return out;
}

describe('Server-Timing', () => {
  it('a signed-in page tells its database, loaders and render time', async () => {
    const user = await makeUser('timing');
    await grantSignupCredits(user.id);
    const client = await signedInClient(app.url, user.id);
    for (const url of ['/app', '/app?tab=results', '/subscription', '/wordpress']) {
      const res = await client.get(url);
      expect(res.status, url).toBe(200);
      const m = metrics(res.headers.get('server-timing'));
      expect(Object.keys(m), url).toEqual(['db', 'loaders', 'render']);
      for (const { dur } of Object.values(m)) expect(dur).toBeGreaterThanOrEqual(0);
      // The session, the user and the page's own reads at least.
      const calls = Number(/database \((\d+) calls\)/.exec(m.db!.desc ?? '')?.[1]);
      expect(calls, url).toBeGreaterThanOrEqual(2);
      expect(m.loaders!.dur).toBeGreaterThan(0);
      expect(m.render!.dur).toBeGreaterThan(0);
    }
    // A client navigation's data request: its loaders' database time (no render).
    const data = await client.get('/app?_data=routes%2Fapp');
    expect(data.status).toBe(200);
    expect(Object.keys(metrics(data.headers.get('server-timing')))).toEqual(['db', 'loaders']);
  });

  it('a landing page served from the cache does not replay the timing of the render it keeps', async () => {
    const client = new TestClient(app.url);
    const first = await client.get('/?timing-check');
    expect(first.headers.get('server-timing')).toContain('render;dur=');
    // Twice: the first fills the cache when the page was not in it yet.
    await client.get('/');
    const cached = await client.get('/');
    expect(cached.headers.get('x-page-cache')).toBe('hit');
    expect(cached.headers.get('server-timing')).toBeNull();
  });

  it('counts each awaited query and transaction once, with its time, and no fragment', async () => {
    const scope = newRequestScope();
    await requestScope.run(scope, async () => {
      await sql`SELECT pg_sleep(0.05)`;
      // A fragment inside another query is one call.
      await sql`SELECT ${sql`1`}::int AS one`;
      await sql.begin(async (tx) => {
        await tx`SELECT pg_sleep(0.05)`;
        await tx`SELECT 1`;
      });
    });
    expect(scope.timing.queries).toBe(3);
    // At least the two sleeps (a lower bound: nothing can make a sleep shorter).
    expect(scope.timing.dbMs).toBeGreaterThanOrEqual(100);
    // Outside a request nothing is counted (jobs, scripts).
    await sql`SELECT 1`;
    expect(scope.timing.queries).toBe(3);
  });
});
