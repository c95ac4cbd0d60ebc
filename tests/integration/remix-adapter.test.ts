/**
 * The app's Remix adapter (app/http/remix-adapter.server.ts), through Express and a real socket: a
 * page is written as it is (with its length in bytes), HEAD answers without a body, streamed
 * and cookie-setting answers pass through, the loaders see the URL the client asked for, an
 * action gets the request body, and a client that goes away aborts the loader's signal.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import compression from 'compression';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentResponse, remixHandler } from '../../app/http/remix-adapter.server';
import { testBuild } from '../support/remix-build';

const seen: { url: string; aborted?: Promise<boolean> }[] = [];
const Page = () => null;
const route = (id: string, parentId: string | undefined, path: string, module: Record<string, unknown>) => ({ id, parentId, path, module });

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
  // A page: the data it got, as its document (multi-byte characters included).
  (_request, status, headers, context) => {
    headers.set('Content-Type', 'text/html; charset=utf-8');
    const { loaderData, actionData } = context.staticHandlerContext;
    return documentResponse(`<!DOCTYPE html><p>長寬比 ${JSON.stringify({ loaderData, actionData })}</p>`, { status, headers });
  },
) as unknown as Parameters<typeof remixHandler>[0]['build'];

let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  const app = express();
  // As server.ts mounts it: compression first.
  app.use(compression());
  app.all('*', remixHandler({ build, mode: 'production', getLoadContext: () => ({ cspNonce: '', clientIp: '' }) }));
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

describe('the Remix adapter', () => {
  it('writes a page as it is, with its length in bytes', async () => {
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
    // Express's res.append adds the charset, as @remix-run/express's adapter did through it.
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
