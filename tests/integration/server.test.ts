import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { getSql } from '../../db/client';
import { createApp, loadBuild } from '../../server';
import { loadEnv } from '../../app/runtime/env.server';
import { createSession } from '../../app/services/sessions.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

function nonceOf(res: Response): string {
  const csp = res.headers.get('content-security-policy') ?? '';
  const m = /'nonce-([^']+)'/.exec(csp);
  expect(m, csp).not.toBeNull();
  return m![1]!;
}

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
    // A browser that sends no Origin but says the request is cross-site is refused too.
    const fetchMeta = await fetch(app.url + '/', {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
      redirect: 'manual',
    });
    expect(fetchMeta.status).toBe(403);
  });

  it('lets same-origin posts through the guard to the route, which answers them', async () => {
    const c = new TestClient(app.url);
    // The page-view endpoint answers an invalid view with its own JSON error: the guard let it pass.
    const own = await c.postJson('/api/analytics/pageview', { path: 42 });
    expect(own.status).toBe(400);
    expect(await own.json()).toEqual({ error: 'Invalid page view' });
    // The same post from another site never reaches it.
    const foreign = await c.postJson('/api/analytics/pageview', { path: 42 }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // Translated, and JSON on the API.
    expect(await foreign.json()).toEqual({ error: expect.stringContaining('another site') });
  });

  it('answers 413 to a body over 1 MB', async () => {
    const c = new TestClient(app.url);
    const res = await c.request('/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'x=' + 'a'.repeat(1024 * 1024 + 10),
    });
    expect(res.status).toBe(413);
  });

  it('sends security headers and a fresh CSP nonce per request that matches the page', async () => {
    const c = new TestClient(app.url);
    // A query string bypasses the landing cache, so both responses are rendered.
    const first = await c.get('/?a=1');
    const second = await c.get('/?a=2');
    expect(first.status).toBe(200);
    const csp = first.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('x-frame-options')).toBe('DENY');
    expect(first.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(first.headers.get('x-powered-by')).toBeNull();
    const n1 = nonceOf(first);
    const n2 = nonceOf(second);
    expect(n1).not.toBe(n2);
    for (const [res, nonce] of [
      [first, n1],
      [second, n2],
    ] as const) {
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    }
  });

  it('caches fingerprinted build assets for a year and public files briefly', async () => {
    const c = new TestClient(app.url);
    const asset = fs.readdirSync(path.join(root, 'public/build')).find((f) => f.endsWith('.js'));
    expect(asset).toBeTruthy();
    const built = await c.get(`/build/${asset}`);
    expect(built.status).toBe(200);
    expect(built.headers.get('cache-control')).toMatch(/max-age=31536000/);
    expect(built.headers.get('cache-control')).toMatch(/immutable/);
    const favicon = await c.get('/favicon.svg');
    expect(favicon.status).toBe(200);
    const maxAge = Number(/max-age=(\d+)/.exec(favicon.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(24 * 3600);
    expect(favicon.headers.get('cache-control')).not.toMatch(/immutable/);
  });

  it('serves the anonymous landing page from its cache with a fresh nonce', async () => {
    const c = new TestClient(app.url, { 'accept-language': 'en' });
    await c.get('/');
    const hit = await c.get('/');
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-page-cache')).toBe('hit');
    expect(hit.headers.get('vary')).toMatch(/Cookie/i);
    const nonce = nonceOf(hit);
    const html = await hit.text();
    expect(html).toContain(`nonce="${nonce}"`);
    const again = await c.get('/');
    const nonce2 = nonceOf(again);
    expect(nonce2).not.toBe(nonce);
    const html2 = await again.text();
    expect(html2).toContain(`nonce="${nonce2}"`);
    expect(html2).not.toContain(`nonce="${nonce}"`);
  });

  it('keeps one cached landing page per language', async () => {
    const en = new TestClient(app.url, { 'accept-language': 'en-US,en;q=0.9' });
    const zh = new TestClient(app.url, { 'accept-language': 'zh-TW,zh;q=0.9' });
    await en.get('/');
    await zh.get('/');
    const enHtml = await (await en.get('/')).text();
    const zhRes = await zh.get('/');
    expect(zhRes.headers.get('x-page-cache')).toBe('hit');
    const zhHtml = await zhRes.text();
    expect(enHtml).toMatch(/<html[^>]*lang="en"/);
    expect(zhHtml).toMatch(/<html[^>]*lang="zh-HK"/);
  });

  it('bypasses the landing cache for a signed-in visitor', async () => {
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name) VALUES (${`cache-${Date.now()}@example.com`}, 'Cache Tester') RETURNING id`;
    const { setCookie } = await createSession(user!.id);
    const c = new TestClient(app.url);
    await c.get('/');
    await c.get('/');
    const res = await c.get('/', { cookie: setCookie.split(';')[0]! });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-page-cache')).toBeNull();
  });

  it('answers a hit with the headers of the render it keeps', async () => {
    const c = new TestClient(app.url, { 'accept-language': 'en' });
    const first = await c.get('/');
    const hit = await c.get('/');
    expect(hit.headers.get('x-page-cache')).toBe('hit');
    for (const name of ['content-type', 'vary']) expect(hit.headers.get(name)).toBe(first.headers.get(name));
    expect(hit.headers.get('content-security-policy')).toContain(`'nonce-${nonceOf(hit)}'`);
    expect(hit.headers.get('set-cookie')).toBeNull();
    // The same page apart from the nonce.
    expect((await hit.text()).replaceAll(nonceOf(hit), 'N')).toBe((await first.text()).replaceAll(nonceOf(first), 'N'));
  });

  it('sends a signed-in page compressed whole, with its exact length, and HEAD and identity as they are', async () => {
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name) VALUES (${`zip-${Date.now()}@example.com`}, 'Zip Tester') RETURNING id`;
    const { setCookie } = await createSession(user!.id);
    const cookie = setCookie.split(';')[0]!;
    const ask = (method: string, encoding?: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const url = new URL('/subscription', app.url);
        const headers: Record<string, string> = { cookie, 'accept-language': 'en' };
        if (encoding) headers['accept-encoding'] = encoding;
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end();
      });
    const plain = await ask('GET');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-length']).toBe(String(plain.body.length));
    const page = plain.body.toString('utf8').replace(/nonce="[^"]*"|nonce-[^']*'/g, 'N');
    expect(page).toMatch(/^<!DOCTYPE html>.*Zip Tester/s);
    for (const [encoding, decode] of [
      ['gzip, deflate, br', zlib.brotliDecompressSync],
      ['gzip', zlib.gunzipSync],
    ] as const) {
      const res = await ask('GET', encoding);
      expect(res.headers['content-encoding']).toBe(encoding === 'gzip' ? 'gzip' : 'br');
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expect(res.headers['transfer-encoding']).toBeUndefined();
      expect(res.headers.vary).toMatch(/Accept-Encoding/i);
      expect(res.headers.vary?.match(/accept-encoding/gi)).toHaveLength(1);
      expect(
        decode(res.body)
          .toString('utf8')
          .replace(/nonce="[^"]*"|nonce-[^']*'/g, 'N'),
      ).toBe(page);
    }
    const head = await ask('HEAD', 'gzip, deflate, br');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.body.length).toBe(0);
  });

  it('keeps a page per theme and never shares one with a query or an unknown cookie', async () => {
    const dark = new TestClient(app.url, { 'accept-language': 'en' });
    dark.cookies.set('theme', 'dark');
    await dark.get('/');
    const darkHit = await dark.get('/');
    expect(darkHit.headers.get('x-page-cache')).toBe('hit');
    expect(await darkHit.text()).toMatch(/<html[^>]*class="[^"]*\bdark\b/);
    const light = new TestClient(app.url, { 'accept-language': 'en' });
    await light.get('/');
    const lightHit = await light.get('/');
    expect(lightHit.headers.get('x-page-cache')).toBe('hit');
    expect(await lightHit.text()).not.toMatch(/<html[^>]*class="[^"]*\bdark\b/);

    const other = new TestClient(app.url, { 'accept-language': 'en' });
    for (let i = 0; i < 2; i++) {
      expect((await other.get('/', { cookie: 'campaign=spring' })).headers.get('x-page-cache')).toBeNull();
      expect((await other.get('/?ref=newsletter')).headers.get('x-page-cache')).toBeNull();
    }
  });
});

describe('request log', () => {
  let url: string;
  let server: http.Server;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
        cb();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const appHandler = createApp({
      env: loadEnv(),
      db: { sql: getSql(), embedded: false, close: async () => {} },
      build: await loadBuild(),
      logger,
    });
    server = http.createServer(appHandler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );

  it('writes one line per request with the path but never the query string or cookies', async () => {
    const res = await fetch(`${url}/reset-password?token=sekret-token-value&email=a%40example.com`, {
      headers: { cookie: '__session=cookie-value-here' },
    });
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 50));
    const entries = lines.filter((l) => l.msg === 'request' && l.path === '/reset-password');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: 'GET', status: res.status });
    const all = JSON.stringify(lines);
    expect(all).not.toContain('sekret-token-value');
    expect(all).not.toContain('a%40example.com');
    expect(all).not.toContain('cookie-value-here');
  });
});
