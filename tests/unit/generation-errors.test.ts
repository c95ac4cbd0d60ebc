import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { namespaces } from '../../app/i18n';
import { createTranslator, type Catalogue } from '../../app/utils/translator';
import type { Translate } from '../../app/utils/generation-schema';
import { failureText, GENERATION_FAILURES, resultForApi } from '../../app/utils/generation-errors';

// Every code a failed generation item can store reads as a sentence in the reader's language: the
// JSON API translates with i18next in the `generation` namespace, the results list with the page
// translator in `workspace`; both must give the same words, and a zh-HK reader must never get an
// English sentence (a missing text would show the key, a copied one English).

const localesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../app/locales');

function catalogue(language: string): Catalogue {
  return Object.fromEntries(
    namespaces.map((ns) => [ns, JSON.parse(fs.readFileSync(path.join(localesDir, language, `${ns}.json`), 'utf8')) as unknown]),
  );
}

/** The API's translator (i18next, as i18n.server.ts sets it up) and the page's, for one language. */
function translators(language: string): { api: Translate; page: Translate } {
  const resources = catalogue(language);
  const i18n = createInstance();
  void i18n.init({
    lng: language,
    fallbackLng: false,
    resources: { [language]: resources as never },
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    initImmediate: false,
  });
  return {
    api: i18n.getFixedT(language, 'generation') as unknown as Translate,
    page: createTranslator(language, resources, { defaultNS: 'common' }).getFixedT(null, 'workspace') as unknown as Translate,
  };
}

/** Three or more Latin words in a row: an English sentence (a lone "API" or "HTTP 503" is not). */
const ENGLISH_RUN = /[A-Za-z]+(?:[\s,.;:'’-]+[A-Za-z]+){2,}/;

const en = translators('en');
const zh = translators('zh-HK');

describe('generation failures, explained', () => {
  it.each(GENERATION_FAILURES)('%s reads as a sentence in en and zh-HK, the same through the API and the page', (code) => {
    const params = { status: 503 };
    const english = failureText(en.api, code, params);
    const chinese = failureText(zh.api, code, params);
    expect(failureText(en.page, code, params)).toBe(english);
    expect(failureText(zh.page, code, params)).toBe(chinese);
    for (const text of [english, chinese]) {
      expect(text.trim()).not.toBe('');
      expect(text).not.toContain(code);
      expect(text).not.toContain('failures.');
      expect(text).not.toContain('{{');
    }
    expect(english).toMatch(ENGLISH_RUN);
    expect(chinese, chinese).not.toMatch(ENGLISH_RUN);
    expect(chinese).toMatch(/\p{Script=Han}/u);
    expect(chinese).not.toBe(english);
  });

  it("quotes the provider's own words after our sentence, never alone", () => {
    const params = { status: 404, detail: 'No endpoints found for this model.' };
    expect(failureText(en.api, 'provider_refused', params)).toBe(
      'The AI provider refused the request (HTTP 404). (The provider said: “No endpoints found for this model.”)',
    );
    expect(failureText(zh.page, 'provider_refused', params)).toBe(
      'AI 供應商拒絕了這個請求（HTTP 404）。（供應商回應：「No endpoints found for this model.」）',
    );
  });

  it('a failure with no code (stored before codes) or an unknown one reads "Generation failed"', () => {
    for (const code of [null, undefined, 'write CONNECTION_CLOSED 127.0.0.1:5432']) {
      expect(failureText(en.api, code)).toBe('Generation failed');
      expect(failureText(zh.page, code)).toBe('生成失敗');
    }
  });

  it('the API shape: `error` translated only when failed, `errorCode` kept, the parameters inside `error`', () => {
    const failed = { id: 'r1', status: 'failed', errorCode: 'provider_rate_limited', errorParams: { status: 429 } };
    expect(resultForApi(zh.api, failed)).toEqual({
      id: 'r1',
      status: 'failed',
      errorCode: 'provider_rate_limited',
      error: 'AI 供應商收到太多請求（HTTP 429），請稍後再試。',
    });
    expect(resultForApi(en.api, { status: 'failed', errorCode: null, errorParams: null })).toEqual({
      status: 'failed',
      errorCode: null,
      error: 'Generation failed',
    });
    expect(resultForApi(en.api, { status: 'canceled', errorCode: null, errorParams: null }).error).toBeNull();
  });
});
