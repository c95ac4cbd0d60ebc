import { describe, expect, it } from 'vitest';
import { models } from '../../app/catalogue';
import { ERROR_STATUS, explainError } from '../../app/http/errors.server';
import { getT } from '../../app/i18n.server';
import { API_TOKEN_ERROR_CODES, ApiTokenError } from '../../app/services/api-tokens.server';
import { BILLING_ERROR_CODES, BillingError } from '../../app/services/billing/errors.server';
import { CSV_ERROR_CODES, CsvError } from '../../app/services/csv-import.server';
import { errors as generationErrors, GENERATION_ERROR_CODES } from '../../app/services/generation/rules.server';
import { IDEMPOTENCY_ERROR_CODES, IdempotencyError } from '../../app/services/idempotency.server';
import { OUTBOUND_ERROR_CODES, OutboundError } from '../../app/services/outbound.server';
import { BLOCKED_URL_REASONS, WEBHOOK_ERROR_CODES, WebhookError } from '../../app/services/webhooks.server';
import { WpError } from '../../app/services/wordpress/client.server';
import { WORDPRESS_ERROR_CODES, WordPressServiceError } from '../../app/services/wordpress/errors.server';
import type { AppError, ErrorDomain } from '../../app/utils/app-error';
import type { Translate } from '../../app/utils/auth-schemas';
import { failureText, GENERATION_FAILURES } from '../../app/utils/generation-errors';
import { deliveryFailureText, WEBHOOK_DELIVERY_FAILURES } from '../../app/utils/webhook-events';
import {
  CONNECTION_FINDINGS,
  connectionFindingText,
  publicationErrorText,
  WP_ERROR_CODES,
  WP_PROBLEMS,
} from '../../app/utils/wordpress-errors';

// Every refusal a user can read, and every stored failure, walked in both languages: each has its
// text in the en and zh-HK catalogues, its values interpolated, a status at the error edge, and the
// zh-HK text says it in Chinese (a missing text would show its key, a copied one English).

/** Every AppError any service throws: each code of each domain, in each of its wordings. */
function everyRefusal(): AppError[] {
  const model = models.find((m) => m.proOnly) ?? models[0]!;
  const generation = [
    generationErrors.insufficientCredits(),
    generationErrors.proOnly(model),
    generationErrors.noApiKey('text'),
    generationErrors.noApiKey('image'),
    generationErrors.tooManyTopics(25),
    generationErrors.invalid('Start failed'),
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
    generationErrors.noContent('errors.noImage', 'No image to download.'),
    generationErrors.noContent('errors.noCompleted', 'No completed results to download.'),
  ];
  return [
    ...generation,
    ...BILLING_ERROR_CODES.map((code) => new BillingError(code, code)),
    ...WORDPRESS_ERROR_CODES.map((code) => new WordPressServiceError(code)),
    ...WP_PROBLEMS.map((problem) => new WpError(problem, 'the site said something')),
    ...CSV_ERROR_CODES.map((code) => new CsvError(code)),
    ...API_TOKEN_ERROR_CODES.map((code) => new ApiTokenError(code)),
    ...IDEMPOTENCY_ERROR_CODES.map((code) => new IdempotencyError(code)),
    ...WEBHOOK_ERROR_CODES.filter((code) => code !== 'blocked_url').map((code) => new WebhookError(code, code)),
    ...BLOCKED_URL_REASONS.map((reason) => new WebhookError('blocked_url', 'refused', reason)),
    ...OUTBOUND_ERROR_CODES.map((code) => new OutboundError(code, code)),
  ];
}

/** Words a zh-HK text keeps in English: names of products, protocols and headers. */
const KEPT_IN_ENGLISH =
  /WordPress|REST API|Application Passwords?|Idempotency-Key|Authorization|Bearer|Postforge|OpenAI|OpenRouter|Replicate|Stripe|HTTPS?|API|CSV|UTF-8|\.htaccess/g;

/** Two Latin words in a row (the first of four letters or more): an English phrase. */
const ENGLISH = /[A-Za-z]{4,} [A-Za-z]{3,}/;

/** A zh-HK text with its interpolated values and the words it keeps in English taken out. */
function chineseOnly(text: string, params: Record<string, unknown> = {}): string {
  let rest = text;
  for (const value of Object.values(params)) if (typeof value === 'string' && value) rest = rest.split(value).join(' ');
  return rest.replace(KEPT_IN_ENGLISH, ' ');
}

function expectTranslated(english: string, chinese: string, params: Record<string, unknown> = {}) {
  for (const text of [english, chinese]) {
    expect(text.trim()).not.toBe('');
    expect(text, text).not.toContain('{{');
    // A key shown as is (i18next answers a missing key with the key).
    expect(text, text).not.toMatch(/^[\w-]+(:[\w-]+)?(\.[\w-]+)+$/);
  }
  expect(chinese, chinese).not.toBe(english);
  expect(chinese, chinese).toMatch(/\p{Script=Han}/u);
  expect(chineseOnly(chinese, params), chinese).not.toMatch(ENGLISH);
}

const refusals = everyRefusal();
const label = (e: AppError) => `${e.domain}:${e.code} (${e.key})`;

describe('every refusal, in both languages', () => {
  it('walks every code of every domain the error edge knows', () => {
    const walked = new Set(refusals.map((e) => `${e.domain}:${e.code}`));
    const listed = Object.entries(ERROR_STATUS).flatMap(([domain, codes]) => Object.keys(codes).map((code) => `${domain}:${code}`));
    expect([...walked].sort()).toEqual([...listed].sort());
    expect(new Set(refusals.map((e) => e.domain))).toEqual(new Set(Object.keys(ERROR_STATUS) as ErrorDomain[]));
    expect(GENERATION_ERROR_CODES.every((code) => walked.has(`generation:${code}`))).toBe(true);
  });

  it.each(refusals.map((e) => [label(e), e] as const))('%s', async (_, error) => {
    // As a page action calls it: with the `t` of the error's own namespace.
    const english = await explainError(error, (await getT('en', error.domain)) as Translate);
    const chinese = await explainError(error, (await getT('zh-HK', error.domain)) as Translate);
    expect(english.code).toBe(error.code);
    expect(english.status).toBeGreaterThanOrEqual(400);
    expect(english.status).toBeLessThan(600);
    expect(chinese.status).toBe(english.status);
    // The values each language's text names (both name the same ones) are interpolated.
    const named = async (language: 'en' | 'zh-HK') => {
      const marked = ((await getT(language, error.domain)) as Translate)(
        error.key,
        Object.fromEntries(Object.keys(error.params).map((k) => [k, `«${k}»`])),
      );
      return Object.keys(error.params).filter((k) => marked.includes(`«${k}»`));
    };
    const names = await named('en');
    expect(await named('zh-HK')).toEqual(names);
    for (const name of names) {
      expect(english.message).toContain(String(error.params[name]));
      expect(chinese.message).toContain(String(error.params[name]));
    }
    expectTranslated(english.message, chinese.message, error.params);
  });

  it('any namespace explains any domain (the key is qualified by its domain)', async () => {
    const t = (await getT('zh-HK', 'common')) as Translate;
    for (const error of refusals) {
      const own = (await explainError(error, (await getT('zh-HK', error.domain)) as Translate)).message;
      expect((await explainError(error, t)).message).toBe(own);
    }
  });

  it('rethrows what is not a refusal (a bug, answered 500)', async () => {
    const bug = new Error('boom');
    await expect(explainError(bug, (await getT('en', 'common')) as Translate)).rejects.toBe(bug);
  });
});

describe('every stored failure, in both languages', () => {
  const pair = async (ns: 'generation' | 'developer' | 'wordpress') =>
    [(await getT('en', ns)) as Translate, (await getT('zh-HK', ns)) as Translate] as const;

  it.each(GENERATION_FAILURES)('generation item: %s', async (code) => {
    const [en, zh] = await pair('generation');
    expectTranslated(failureText(en, code, { status: 503 }), failureText(zh, code, { status: 503 }));
  });

  it.each([...WEBHOOK_DELIVERY_FAILURES, 'unknown'])('webhook delivery: %s', async (code) => {
    const [en, zh] = await pair('developer');
    const params = code === 'http_status' ? { status: 503 } : null;
    const english = deliveryFailureText(en, code, params);
    const chinese = deliveryFailureText(zh, code, params);
    expectTranslated(english, chinese);
    if (params) expect(chinese).toContain('503');
  });

  it.each([...WP_ERROR_CODES, ...WP_PROBLEMS, 'unknown'])('WordPress publication: %s', async (code) => {
    const [en, zh] = await pair('wordpress');
    expectTranslated(publicationErrorText(en, code, null), publicationErrorText(zh, code, null));
  });

  it.each(CONNECTION_FINDINGS)('connection test finding: %s', async (finding) => {
    const [en, zh] = await pair('wordpress');
    expectTranslated(connectionFindingText(en, finding), connectionFindingText(zh, finding));
  });

  it("a publication's failure keeps the site's own words, but never our English about a call that got no answer", async () => {
    const [, zh] = await pair('wordpress');
    expect(publicationErrorText(zh, 'rest_cannot_create', 'Sorry, you are not allowed')).toContain('Sorry, you are not allowed');
    const unanswered = publicationErrorText(zh, 'refused', 'The connection was refused');
    expect(unanswered).not.toContain('connection');
    expect(unanswered).not.toMatch(ENGLISH);
  });
});
