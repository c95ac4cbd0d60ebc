import crypto from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { createApp, loadBuild } from '../../server';
import { loadEnv, resetEnv } from '../../app/runtime/env.server';
import { LOG_REDACT_PATHS } from '../../app/runtime/logger.server';
import { createSession } from '../../app/services/sessions.server';
import { maxFor } from '../../app/services/rate-limit.server';
import { TestClient } from '../support/app-server';
import { authenticateApiToken, createApiToken, hashToken, listApiTokens, revokeApiToken } from '../../app/services/api-tokens.server';

// Personal API tokens through the real app (run `npm run build` first), with a logger
// that writes every line (trace) into memory, so the test can prove a token never reaches a log.

let url: string;
let server: http.Server;
const logLines: string[] = [];

beforeAll(async () => {
  resetEnv();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level: 'trace', redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } }, sink);
  const app = createApp({
    env: loadEnv(),
    db: { sql: getSql(), embedded: false, close: async () => {} },
    build: await loadBuild(),
    logger,
  });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function makeUser(status: 'free' | 'pro' = 'pro') {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${`tok-${crypto.randomUUID()}@example.com`}, 'Token User', ${status}) RETURNING id`;
  return u!.id;
}

/** A fetch as a script sends it: no cookie, no Origin, no Sec-Fetch-*. */
function bearer(token: string, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return fetch(url + path, { ...init, headers, redirect: 'manual' });
}

describe('the token service', () => {
  it('makes pf_live_ tokens, stores only their SHA-256, lists them and refuses revoked or expired ones', async () => {
    const userId = await makeUser();
    const { token, apiToken } = await createApiToken(userId, { name: 'CI', expiresAt: null });
    expect(token).toMatch(/^pf_live_[0-9a-f]{64}$/);
    const [row] = await sql<{ token_hash: string }[]>`SELECT token_hash FROM api_tokens WHERE id = ${apiToken.id}`;
    expect(row!.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(await sql`SELECT * FROM api_tokens WHERE user_id = ${userId}`)).not.toContain(token.slice(8));
    expect((await authenticateApiToken(token))?.user.id).toBe(userId);
    expect(await authenticateApiToken(token.slice(0, -1) + (token.endsWith('0') ? '1' : '0'))).toBeNull();
    expect(await listApiTokens(userId)).toMatchObject([{ name: 'CI', last4: token.slice(-4), revokedAt: null }]);

    const other = await makeUser();
    expect(await revokeApiToken(other, apiToken.id)).toBe(false); // not theirs
    expect(await revokeApiToken(userId, apiToken.id)).toBe(true);
    expect(await authenticateApiToken(token)).toBeNull();

    const soon = await createApiToken(userId, { name: 'Soon', expiresAt: new Date(Date.now() + 60_000) });
    expect(await authenticateApiToken(soon.token)).not.toBeNull();
    await sql`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = ${soon.apiToken.id}`;
    expect(await authenticateApiToken(soon.token)).toBeNull();
  });
});

describe('Authorization: Bearer on the JSON routes', () => {
  it('works on the routes a signed-in user calls (no cookie, no Origin), records the last use, and not on pages', async () => {
    const userId = await makeUser();
    const { token, apiToken } = await createApiToken(userId, { name: 'script', expiresAt: null });
    const me = await bearer(token, '/api/user');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name: 'Token User' });
    expect(me.headers.get('set-cookie')).toBeNull();
    expect(me.headers.get('cache-control')).toContain('no-store');

    for (const path of [
      '/api/subscription',
      '/api/subscription/plans',
      '/api/templates',
      '/api/results?page=1&limit=5',
      '/api/settings',
      '/api/user/settings',
      '/api/wordpress/sites',
      '/api/wordpress/scheduled',
      '/api/credits/history',
    ]) {
      const res = await bearer(token, path);
      expect(res.status, path).toBe(200);
    }
    // Writes without Origin: a template saved and deleted, last-used values patched.
    const saved = await bearer(token, '/api/templates', {
      method: 'POST',
      body: JSON.stringify({ name: 'From a script', type: 'text', settings: { model: 'openai/gpt-4o-mini-search-preview' } }),
    });
    expect(saved.status).toBe(201);
    const { template } = (await saved.json()) as { template: { id: string } };
    expect((await bearer(token, `/api/templates/${template.id}`, { method: 'DELETE' })).status).toBe(200);
    const patched = await bearer(token, '/api/user/settings', {
      method: 'PATCH',
      body: JSON.stringify({ lastTextReadingLevel: 'College' }),
    });
    expect(patched.status).toBe(200);

    const [row] = await sql<{ last_used_at: Date | null }[]>`SELECT last_used_at FROM api_tokens WHERE id = ${apiToken.id}`;
    expect(row!.last_used_at).not.toBeNull();

    // Pages are for browsers: a token does not sign one in.
    const page = await bearer(token, '/app');
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/');
  });

  it('a bad, revoked or expired token is 401 at once, even beside a valid session cookie', async () => {
    const userId = await makeUser();
    const { token, apiToken } = await createApiToken(userId, { name: 'short-lived', expiresAt: null });
    expect((await bearer(token, '/api/results')).status).toBe(200);

    const unknown = await bearer(`pf_live_${'0'.repeat(64)}`, '/api/results');
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="Postforge", error="invalid_token"');
    expect(await unknown.json()).toEqual({ error: 'This API token is not valid: it is unknown, revoked or expired.' });
    const malformed = await fetch(`${url}/api/results`, { headers: { authorization: 'Bearer' } });
    expect(malformed.status).toBe(401);

    await revokeApiToken(userId, apiToken.id);
    const revoked = await bearer(token, '/api/results', { headers: { 'accept-language': 'zh-HK' } });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: string }).error).toBe('此 API 權杖無效：它不存在、已被撤銷或已過期。');

    const { setCookie } = await createSession(userId);
    const withCookie = await bearer(token, '/api/results', { headers: { cookie: setCookie.split(';')[0]! } });
    expect(withCookie.status).toBe(401);

    const later = await createApiToken(userId, { name: 'expiring', expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await bearer(later.token, '/api/user')).status).toBe(200);
    await sql`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = ${later.apiToken.id}`;
    expect((await bearer(later.token, '/api/user')).status).toBe(401);
  });

  it('a request with no credentials at all is 401 with a Bearer challenge (RFC 6750), naming no error', async () => {
    const challenge = 'Bearer realm="Postforge"';
    for (const [path, init] of [
      ['/api/results', {}],
      ['/api/user', {}],
      ['/api/wordpress/scheduled', { headers: { 'accept-language': 'zh-HK' } }],
      ['/api/generate/text', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
      // Another scheme is not a credential of ours: the same answer.
      ['/api/results', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }],
    ] as const) {
      const res = await fetch(url + path, init);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate'), path).toBe(challenge);
    }
    const anonymous = await fetch(`${url}/api/results`);
    expect(await anonymous.json()).toEqual({ error: expect.any(String) });
  });

  it('account and billing changes answer a translated 403 and change nothing', async () => {
    const userId = await makeUser();
    const { token } = await createApiToken(userId, { name: 'limited', expiresAt: null });
    const calls: [string, string, unknown][] = [
      ['POST', '/api/login', { email: 'x@example.com', password: 'secret123' }],
      ['POST', '/api/logout', {}],
      ['POST', '/api/register', { name: 'Someone', email: 'someone@example.com' }],
      ['POST', '/api/forgot-password', { email: 'x@example.com' }],
      ['POST', '/api/reset-password', { password: 'a', confirmPassword: 'a', token: 't', email: 'x@example.com' }],
      ['POST', '/api/settings', { darkMode: true }],
      ['POST', '/api/api-keys', { openRouterApiKey: 'sk-or-stolen-1234' }],
      ['POST', '/api/subscription/checkout', { priceId: 'pro', language: 'en' }],
      ['POST', '/api/subscription/cancel', {}],
      ['POST', '/api/subscription/manual-upgrade', {}],
      ['POST', '/api/subscription/activate', {}],
    ];
    for (const [method, path, body] of calls) {
      const res = await bearer(token, path, { method, body: JSON.stringify(body) });
      expect(res.status, path).toBe(403);
      expect(await res.json(), path).toEqual({
        error: 'This changes your account or billing, so it needs a browser session: sign in on the website to do it. API tokens cannot.',
        code: 'session_required',
      });
    }
    const zh = await bearer(token, '/api/api-keys', {
      method: 'POST',
      body: JSON.stringify({ openRouterApiKey: 'sk-or-stolen-1234' }),
      headers: { 'accept-language': 'zh-HK,zh;q=0.9' },
    });
    expect(((await zh.json()) as { error: string }).error).toContain('API 權杖不能執行此操作');
    expect(await sql`SELECT 1 FROM user_api_keys WHERE user_id = ${userId}`).toHaveLength(0);
    // Reading the same paths is fine.
    expect((await bearer(token, '/api/settings')).status).toBe(200);
  });

  it('is rate limited per token: a token over its limit gets 429, another token of the same user does not', async () => {
    const userId = await makeUser();
    const a = await createApiToken(userId, { name: 'busy', expiresAt: null });
    const b = await createApiToken(userId, { name: 'quiet', expiresAt: null });
    // The window of token a, filled up to its limit (the key format of rate-limit.server.ts).
    const key = `apiToken:${crypto.createHash('sha256').update(a.apiToken.id).digest('hex').slice(0, 32)}`;
    await sql`INSERT INTO rate_limits (key, window_started_at, hits) VALUES (${key}, now(), ${maxFor('apiToken')})`;
    const limited = await bearer(a.token, '/api/user');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await bearer(b.token, '/api/user')).status).toBe(200);
  });

  it('CSRF: a bearer request needs no Origin; a cookie request from another site is still refused', async () => {
    const userId = await makeUser();
    const { token } = await createApiToken(userId, { name: 'csrf', expiresAt: null });
    const body = JSON.stringify({ name: 'Cross', type: 'text', settings: {} });
    const fromElsewhere = { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' };
    const withToken = await bearer(token, '/api/templates', { method: 'POST', body, headers: fromElsewhere });
    expect(withToken.status).toBe(201);

    const { setCookie } = await createSession(userId);
    const cookie = setCookie.split(';')[0]!;
    const withCookie = await fetch(`${url}/api/templates`, { method: 'POST', body, headers: { ...fromElsewhere, cookie } });
    expect(withCookie.status).toBe(403);
    // A cookie riding along with a token does not skip the check.
    const both = await bearer(token, '/api/templates', { method: 'POST', body, headers: { ...fromElsewhere, cookie } });
    expect(both.status).toBe(403);
  });

  it('never writes a token into the log, while the request lines are there', async () => {
    const userId = await makeUser();
    const { token } = await createApiToken(userId, { name: 'logged', expiresAt: null });
    logLines.length = 0;
    await bearer(token, '/api/user');
    await bearer(token, `/api/results?token=${token}`);
    await bearer(token, '/api/login', { method: 'POST', body: '{}' });
    // What a handler might log about a request: its headers.
    const logger = pino(
      { level: 'trace', redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } },
      new Writable({ write: (c, _e, d) => (logLines.push(String(c)), d()) }),
    );
    logger.info(
      { headers: { authorization: `Bearer ${token}` }, req: { headers: { authorization: `Bearer ${token}`, cookie: 'x' } }, token },
      'what a handler might log',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const all = logLines.join('');
    expect(all).toContain('"path":"/api/user"');
    expect(all).toContain('"status":403');
    expect(all).toContain('[redacted]');
    expect(all).not.toContain(token.slice(8));
  });
});

describe('the API tokens page without JavaScript (plain form posts)', () => {
  async function browser(language: 'en' | 'zh-HK') {
    const userId = await makeUser();
    const c = new TestClient(url, { 'accept-language': language });
    const { setCookie } = await createSession(userId);
    const pair = setCookie.split(';')[0]!;
    c.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    return { userId, c };
  }

  it('creates (token in that answer only, never cached), refuses a blank name, revokes with a toast', async () => {
    const { userId, c } = await browser('en');
    const blank = await c.postForm('/settings/api-tokens', { intent: 'create', name: '   ', expiresInDays: '' });
    expect(blank.status).toBe(400);
    expect(await blank.text()).toContain('Please enter a name for the token (up to 100 characters).');
    expect(await sql`SELECT 1 FROM api_tokens WHERE user_id = ${userId}`).toHaveLength(0);

    const made = await c.postForm('/settings/api-tokens', { intent: 'create', name: 'Sheets', expiresInDays: '90' });
    expect(made.status).toBe(200);
    expect(made.headers.get('cache-control')).toContain('no-store');
    const html = await made.text();
    const token = /pf_live_[0-9a-f]{64}/.exec(html)?.[0];
    expect(token).toBeTruthy();
    const [row] = await sql<{ id: string; days: number }[]>`
      SELECT id, round(extract(epoch FROM expires_at - created_at) / 86400)::int AS days FROM api_tokens WHERE user_id = ${userId}`;
    expect(row!.days).toBe(90);

    const page = await (await c.get('/settings/api-tokens')).text();
    expect(page).toContain('Sheets');
    expect(page).not.toContain(token!);

    const revoked = await c.postForm('/settings/api-tokens', { intent: 'revoke', id: row!.id, name: 'Sheets' });
    expect(revoked.status).toBe(302);
    expect(revoked.headers.get('location')).toBe('/settings/api-tokens');
    expect((await bearer(token!, '/api/user')).status).toBe(401);
    // Another user's token id: nothing happens.
    const other = await browser('en');
    const { apiToken } = await createApiToken(other.userId, { name: 'theirs', expiresAt: null });
    await c.postForm('/settings/api-tokens', { intent: 'revoke', id: apiToken.id, name: 'theirs' });
    expect((await listApiTokens(other.userId))[0]!.revokedAt).toBeNull();
  });

  it('speaks zh-HK', async () => {
    const { c } = await browser('zh-HK');
    const page = await (await c.get('/settings/api-tokens')).text();
    expect(page).toContain('API 權杖');
    expect(page).toContain('建立權杖');
    const blank = await c.postForm('/settings/api-tokens', { intent: 'create', name: '' });
    expect(await blank.text()).toContain('請輸入權杖名稱（最多 100 個字元）。');
  });
});
