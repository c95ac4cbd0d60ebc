/**
 * Remix behind Express as server.ts mounts it (@remix-run/express, the lost-connection retry, the
 * last error handler), through a real socket: a page goes out with its length in bytes, HEAD
 * answers without a body, streamed and cookie-setting answers pass through, the loaders see the URL
 * the client asked for, an action gets the request body, and a client that goes away aborts the
 * loader's signal. With the app's handleError: a request that failed for its database answers a
 * translated 503 logged once (a read whose connection was lost is served once more first); any
 * other error stays a 500.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import compression from 'compression';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRequestHandler } from '@remix-run/express';
import { handleDataRequest, handleError } from '../../app/entry.server';
import { lastErrorHandler } from '../../app/http/last-error.server';
import { retryReadOnLostConnection } from '../../app/http/lost-connection-retry.server';
import { databaseMarkedDown, markDatabaseUp } from '../../app/runtime/db-unavailable.server';
import { getLogger } from '../../app/runtime/logger.server';
import { expectConsoleError } from '../support/console-guard';
import { testBuild } from '../support/remix-build';

const seen: { url: string; aborted?: Promise<boolean> }[] = [];
const Page = () => null;
const route = (id: string, parentId: string | undefined, path: string, module: Record<string, unknown>) => ({ id, parentId, path, module });

// Errors as postgres.js and Node give them: a backend terminated under a query, a socket closed
// under it, a database that refuses connections.
const terminated = () =>
  Object.assign(new Error('terminating connection due to administrator command'), {
    name: 'PostgresError',
    code: '57P01',
    severity: 'FATAL',
  });
const closed = () => Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' });
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
/** How many times each database route's loader or action ran. */
const runs = { flaky: 0, lost: 0, action: 0 };

const routes = [
  route('root', undefined, '', { default: Page, loader: ({ request }: { request: Request }) => (seen.push({ url: request.url }), null) }),
  route('routes/page', 'root', 'page', {
    default: Page,
    // ?long=… makes a page long enough to compress.
    loader: ({ request }: { request: Request }) => ({ title: 'A page', long: new URL(request.url).searchParams.get('long') ?? undefined }),
    action: async ({ request }: { request: Request }) => ({ got: (await request.formData()).get('topic') }),
  }),
  route('routes/slow', 'root', 'slow', {
    default: Page,
    loader: ({ request }: { request: Request }) => {
      const aborted = new Promise<boolean>((resolve) => request.signal.addEventListener('abort', () => resolve(true)));
      seen.push({ url: request.url, aborted });
      return aborted.then(() => null);
    },
  }),
  route('routes/feed', 'root', 'feed', {
    loader: () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('one,'));
            controller.enqueue(new TextEncoder().encode('two'));
            controller.close();
          },
        }),
        { headers: { 'Content-Type': 'text/csv' } },
      ),
  }),
  // A read whose connection is lost the first time only.
  route('routes/flaky', 'root', 'flaky', {
    default: Page,
    loader: () => {
      if (runs.flaky++ === 0) throw closed();
      return { fine: true };
    },
  }),
  // A page whose connection is lost every time; its action too.
  route('routes/lost', 'root', 'lost', {
    default: Page,
    loader: () => {
      runs.lost++;
      throw terminated();
    },
    action: () => {
      runs.action++;
      throw closed();
    },
  }),
  // An API route (no component) whose database refuses connections.
  route('routes/api.refused', 'root', 'api/refused', {
    loader: () => {
      throw refused();
    },
  }),
  route('routes/bug', 'root', 'bug', {
    default: Page,
    loader: () => {
      throw new TypeError('boom: a bug, not an outage');
    },
  }),
  route('routes/cookies', 'root', 'cookies', {
    loader: () => {
      const headers = new Headers();
      headers.append('Set-Cookie', 'a=1; Path=/');
      headers.append('Set-Cookie', 'b=2; Path=/');
      return new Response('ok', { headers });
    },
  }),
];

const build = testBuild(
  routes,
  // A page: the data it got, as its document (multi-byte characters included), with its length as
  // entry.server gives it.
  (_request, status, headers, context) => {
    headers.set('Content-Type', 'text/html; charset=utf-8');
    const { loaderData, actionData } = context.staticHandlerContext;
    const body = Buffer.from(`<!DOCTYPE html><p>長寬比 ${JSON.stringify({ loaderData, actionData })}</p>`);
    headers.set('Content-Length', String(body.length));
    return new Response(body, { status, headers });
  },
  { handleError, handleDataRequest },
) as unknown as Parameters<typeof createRequestHandler>[0]['build'];

let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  const app = express();
  // As server.ts mounts it: compression first; the request's id before it.
  let requests = 0;
  app.use((req, res, next) => {
    res.locals.requestId = req.headers['x-request-id'] = `request-${++requests}`;
    next();
  });
  app.use(compression());
  app.all(
    '*',
    retryReadOnLostConnection(createRequestHandler({ build, mode: 'production', getLoadContext: () => ({ cspNonce: '', clientIp: '' }) })),
  );
  app.use(lastErrorHandler(getLogger()));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A raw request, so that HEAD, Host and the body's framing are exactly what went over the wire. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Remix behind Express', () => {
  it('sends a page with its length in bytes', async () => {
    const res = await raw('GET', '/page');
    expect(res.status).toBe(200);
    const text = res.body.toString('utf8');
    expect(text).toBe('<!DOCTYPE html><p>長寬比 {"loaderData":{"root":null,"routes/page":{"title":"A page"}},"actionData":null}</p>');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('compresses a page for a client that accepts gzip, without a stale length', async () => {
    const res = await raw('GET', '/page', { 'Accept-Encoding': 'gzip' });
    // Too short to compress (compression's 1 KB threshold): sent as is, with its length.
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(res.body.length));
    const big = await raw('GET', `/page?long=${'x'.repeat(2000)}`, { 'Accept-Encoding': 'gzip' });
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(big.headers['content-length']).toBeUndefined();
    expect(zlib.gunzipSync(big.body).toString('utf8')).toContain('長寬比');
  });

  it('answers HEAD with the page’s headers and no body', async () => {
    const res = await raw('HEAD', '/page');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body.length).toBe(0);
  });

  it('streams a resource route’s body and passes every Set-Cookie', async () => {
    const feed = await fetch(`${base}/feed`);
    // Express's res.append adds the charset.
    expect(feed.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await feed.text()).toBe('one,two');
    const cookies = await fetch(`${base}/cookies`);
    expect(cookies.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });

  it('gives the loaders the URL the client asked for, its port from Host or X-Forwarded-Host', async () => {
    seen.length = 0;
    await raw('GET', '/page?tab=results', { Host: 'example.test:8443' });
    await raw('GET', '/page', { Host: 'example.test', 'X-Forwarded-Host': 'proxy.test:9000' });
    // Without `trust proxy` the host name is Host's; the port is the forwarded one when it has one.
    expect(seen.map((s) => s.url)).toEqual(['http://example.test:8443/page?tab=results', 'http://example.test:9000/page']);
  });

  it('gives an action the request body', async () => {
    const res = await raw('POST', '/page', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'topic=green+tea');
    expect(res.body.toString('utf8')).toContain('"actionData":{"routes/page":{"got":"green tea"}}');
  });

  it('aborts the loader’s signal when the client goes before the answer', async () => {
    seen.length = 0;
    const req = http.request({ host: '127.0.0.1', port, path: '/slow' });
    req.on('error', () => {});
    req.end();
    await expect.poll(() => seen.find((s) => s.aborted)).toBeTruthy();
    req.destroy();
    expect(await seen.find((s) => s.aborted)!.aborted).toBe(true);
  });
});

describe('Remix behind Express when the database fails', () => {
  const unavailable = {
    en: 'Postforge cannot reach its database right now. Please try again in a few seconds.',
    'zh-HK': 'Postforge 暫時無法連接資料庫，請過幾秒再試。',
  };
  const warnings = () => vi.mocked(getLogger().warn).mock.calls.map(([fields]) => fields as Record<string, unknown>);
  beforeAll(() => void vi.spyOn(getLogger(), 'warn'));
  afterEach(() => {
    vi.mocked(getLogger().warn).mockClear();
    markDatabaseUp();
  });

  it('serves a read again when its connection was lost, once', async () => {
    runs.flaky = 0;
    const res = await raw('GET', '/flaky');
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toContain('"routes/flaky":{"fine":true}');
    expect(runs.flaky).toBe(2);
    expect(warnings()).toEqual([]);
    // A lost connection says nothing of the database as a whole.
    expect(databaseMarkedDown()).toBe(false);
  });

  it('answers a translated 503 page, logged once with the request id, when the second try fails too', async () => {
    runs.lost = 0;
    const res = await raw('GET', '/lost', { 'Accept-Language': 'zh-HK' });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body.toString('utf8')).toContain(unavailable['zh-HK']);
    expect(runs.lost).toBe(2);
    expect(warnings()).toEqual([expect.objectContaining({ requestId: expect.stringMatching(/^request-/), code: '57P01', path: '/lost' })]);
    expect(JSON.stringify(warnings())).not.toContain('    at ');
  });

  it('answers a data request in JSON', async () => {
    const res = await raw('GET', '/lost?_data=routes%2Flost');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ error: unavailable.en });
    expect(warnings()).toHaveLength(1);
  });

  it('never tries an action twice', async () => {
    runs.action = 0;
    const res = await raw('POST', '/lost?_data=routes%2Flost', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'topic=tea');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ error: unavailable.en });
    expect(runs.action).toBe(1);
    expect(warnings()).toEqual([expect.objectContaining({ code: 'CONNECTION_CLOSED', method: 'POST' })]);
  });

  it('answers an API route 503 in JSON, where Remix would answer 500, and marks the database down', async () => {
    const res = await raw('GET', '/api/refused', { 'Accept-Language': 'zh-HK' });
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ error: unavailable['zh-HK'] });
    expect(warnings()).toEqual([expect.objectContaining({ code: 'ECONNREFUSED', path: '/api/refused' })]);
    expect(databaseMarkedDown()).toBe(true);
  });

  it('leaves any other error a 500, logged as an error with the request id', async () => {
    expectConsoleError(/boom: a bug/);
    const error = vi.spyOn(getLogger(), 'error');
    const res = await raw('GET', '/bug?_data=routes%2Fbug');
    expect(res.status).toBe(500);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ requestId: expect.stringMatching(/^request-/), err: expect.any(TypeError) }),
      'unexpected error',
    );
    expect(warnings()).toEqual([]);
    error.mockRestore();
  });
});
