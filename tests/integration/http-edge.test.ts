import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { getT } from '../../app/i18n.server';
import { languages } from '../../app/i18n';
import { ERROR_STATUS, errorResponse, errorStatus } from '../../app/http/errors.server';
import { BILLING_ERROR_CODES, BillingError } from '../../app/services/billing/errors.server';
import { CSV_ERROR_CODES, CsvError } from '../../app/services/csv-import.server';
import { API_TOKEN_ERROR_CODES } from '../../app/services/api-tokens.server';
import { IDEMPOTENCY_ERROR_CODES } from '../../app/services/idempotency.server';
import { OUTBOUND_ERROR_CODES } from '../../app/services/outbound.server';
import { WEBHOOK_ERROR_CODES } from '../../app/services/webhooks.server';
import { GENERATION_ERROR_CODES, errors as generationErrors } from '../../app/services/generation/rules.server';
import { WpError } from '../../app/services/wordpress/client.server';
import { WORDPRESS_ERROR_CODES, WordPressServiceError } from '../../app/services/wordpress/errors.server';
import { models } from '../../app/catalogue';
import { WP_PROBLEMS } from '../../app/utils/wordpress-errors';
import type { AppError } from '../../app/utils/app-error';
import { startTestApp, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';

// Services throw one error type; the edge alone maps each code to a status and a
// message in the user's language, and every signed-in JSON answer forwards the rolling cookie.

/** One error of every kind a service throws (every code of every domain, every message key). */
function everyServiceError(): AppError[] {
  const model = models.find((m) => m.kind === 'text')!;
  const generation = [
    generationErrors.insufficientCredits(),
    generationErrors.proOnly(model),
    generationErrors.noApiKey('text'),
    generationErrors.noApiKey('image'),
    generationErrors.tooManyTopics(500),
    generationErrors.invalid('bad input'),
    generationErrors.notFound('result'),
    generationErrors.notFound('job'),
    generationErrors.notFound('image'),
    generationErrors.notRetryable(),
    generationErrors.notEditable(),
    generationErrors.notPlanned(),
    generationErrors.notFixable(),
    generationErrors.fixRunning(),
    generationErrors.resultChanged(),
    generationErrors.costChanged(2),
    generationErrors.noContent(),
  ];
  expect(new Set(generation.map((e) => e.code))).toEqual(new Set(GENERATION_ERROR_CODES));
  const earlier = { id: 'p1', resultId: 'r1', status: 'published', postId: 7, link: 'https://blog.example/p' } as never;
  return [
    ...generation,
    ...BILLING_ERROR_CODES.map((code) => new BillingError(code, code)),
    ...WORDPRESS_ERROR_CODES.map((code) => new WordPressServiceError(code)),
    new WordPressServiceError('already_published', 'already_published', earlier, [earlier]),
    ...WP_PROBLEMS.map((problem) => new WpError(problem, 'The site said no')),
    ...CSV_ERROR_CODES.map((code) => new CsvError(code)),
  ];
}

describe('the code → status map', () => {
  it('has a 4xx/5xx status for every code of every domain, and no code that no service throws', () => {
    const lists = {
      generation: GENERATION_ERROR_CODES,
      billing: BILLING_ERROR_CODES,
      wordpress: [...WORDPRESS_ERROR_CODES, 'site_failed'],
      inputs: CSV_ERROR_CODES,
      tokens: [...API_TOKEN_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
      developer: [...new Set([...WEBHOOK_ERROR_CODES, ...OUTBOUND_ERROR_CODES])],
    };
    expect(Object.keys(ERROR_STATUS).sort()).toEqual(Object.keys(lists).sort());
    for (const [domain, codes] of Object.entries(lists)) {
      const statuses = ERROR_STATUS[domain as keyof typeof ERROR_STATUS] as Record<string, number>;
      expect(Object.keys(statuses).sort(), domain).toEqual([...codes].sort());
      for (const code of codes) {
        expect(Number.isInteger(statuses[code]), `${domain}.${code}`).toBe(true);
        expect(statuses[code]).toBeGreaterThanOrEqual(400);
        expect(statuses[code]).toBeLessThan(600);
      }
    }
    expect(errorStatus(generationErrors.insufficientCredits())).toBe(402);
    expect(errorStatus(new CsvError('tooLarge'))).toBe(413);
    expect(errorStatus(new WpError('timeout', 'timed out'))).toBe(502);
  });

  it('every service error has a message in en and in zh-HK (translated, values filled in)', async () => {
    for (const error of everyServiceError()) {
      const messages: string[] = [];
      for (const language of languages) {
        const t = await getT(language, error.domain);
        const message = t(error.key, error.params);
        const label = `${language} ${error.domain}:${error.key} (${error.code})`;
        expect(message, label).toBeTruthy();
        expect(message, label).not.toBe(error.key);
        expect(message, label).not.toMatch(/\{\{|\}\}/);
        messages.push(message);
      }
      expect(messages[1], `${error.domain}:${error.key} is the same text in both languages`).not.toBe(messages[0]);
    }
  });

  it('answers a refusal as { error } with its status in the request language; anything else is rethrown', async () => {
    const zh = new Request('http://x/api', { headers: { 'Accept-Language': 'zh-HK' } });
    const en = new Request('http://x/api', { headers: { 'Accept-Language': 'en' } });
    for (const error of everyServiceError()) {
      const [a, b] = [await errorResponse(en, error), await errorResponse(zh, error)];
      expect(a.status).toBe(errorStatus(error));
      expect(a.headers.get('Cache-Control')).toBe('no-store');
      const [bodyEn, bodyZh] = [await a.json(), await b.json()];
      if (error instanceof WpError) {
        // The site's own words stay the error; our diagnosis is translated beside them.
        expect(bodyZh).toEqual({
          error: 'The site said no',
          diagnosis: { code: error.problem, hint: (await getT('zh-HK', 'wordpress'))(error.key) },
        });
      } else {
        expect(bodyZh.error).toBe((await getT('zh-HK', error.domain))(error.key, error.params));
        expect(bodyEn.error).toBe((await getT('en', error.domain))(error.key, error.params));
      }
      if (error instanceof CsvError) expect(bodyEn.fields).toEqual({ file: [bodyEn.error] });
    }
    await expect(errorResponse(en, new Error('a bug'))).rejects.toThrow('a bug');
  });
});

describe('apiContext over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  /** Moves the user's sessions' expiry back, so the next request rolls it forward (once a day). */
  const ageSessions = (userId: string) => sql`UPDATE sessions SET expires_at = now() + interval '20 days' WHERE user_id = ${userId}`;
  const expiry = async (userId: string) =>
    (await sql<{ e: Date }[]>`SELECT max(expires_at) AS e FROM sessions WHERE user_id = ${userId}`)[0]!.e.getTime();

  it('forwards the rolling session cookie on an input-tools route (success and refusal), which apiUser dropped', async () => {
    const user = await makeUser('edge-roll');
    const client = await signedInClient(app.url, user.id);
    await ageSessions(user.id);
    const before = await expiry(user.id);
    const res = await client.get('/api/settings');
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__session='));
    expect(cookie, 'the rolled session cookie').toBeTruthy();
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(await expiry(user.id)).toBeGreaterThan(before + 9 * 24 * 3600 * 1000);
    // Rolled once a day only: the next answer has nothing to forward.
    expect((await client.get('/api/settings')).headers.getSetCookie().some((c) => c.startsWith('__session='))).toBe(false);

    // A refusal after sign-in carries it too (another user's or a missing template: 404).
    await ageSessions(user.id);
    const missing = await client.get('/api/templates/00000000-0000-0000-0000-000000000000', { 'Accept-Language': 'zh-HK' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toBe((await getT('zh-HK', 'inputs'))('templates.notFound'));
    expect(missing.headers.getSetCookie().some((c) => c.startsWith('__session='))).toBe(true);

    // A service refusal (AppError) mapped at the edge: a missing result is 404 with the cookie.
    await ageSessions(user.id);
    const gone = await client.get('/api/results/00000000-0000-0000-0000-000000000000');
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: (await getT('en', 'generation'))('errors.notFound') });
    expect(gone.headers.getSetCookie().some((c) => c.startsWith('__session='))).toBe(true);
  });

  it('answers 401 in JSON, translated, without a session; 405 before that for a wrong method', async () => {
    const anonymous = await fetch(`${app.url}/api/templates`, { headers: { 'Accept-Language': 'zh-HK' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('Cache-Control')).toBe('no-store');
    expect(await anonymous.json()).toEqual({ error: (await getT('zh-HK', 'auth'))('errors.unauthenticated') });
    const wrong = await fetch(`${app.url}/api/wordpress/publish`, { method: 'PUT', headers: { origin: app.url } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('Allow')).toBe('POST');
  });
});
