import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { timeZoneOfIndex } from '../../app/services/wordpress/client.server';
import { errorExplanationKey, storedErrorCode, WP_ERROR_CODES, WP_PROBLEMS } from '../../app/utils/wordpress-errors';

// Every failure code a publication can store is explained in both languages (a
// missing text would show the raw key), and the site's zone is read from its REST index as
// WordPress states it (a city, or a bare UTC offset).
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
type Catalogue = { [key: string]: string | Catalogue };
const catalogue = (language: string) =>
  JSON.parse(fs.readFileSync(path.join(root, 'app/locales', language, 'wordpress.json'), 'utf8')) as Catalogue;
const lookup = (c: Catalogue, key: string) =>
  key.split('.').reduce<string | Catalogue | undefined>((n, k) => (typeof n === 'object' ? n[k] : undefined), c);

describe('WordPress failures explained', () => {
  it.each(['en', 'zh-HK'])('every stored code has a text in %s', (language) => {
    const c = catalogue(language);
    for (const code of [...WP_ERROR_CODES, ...WP_PROBLEMS, null, 'some_unknown_code']) {
      const key = errorExplanationKey(code);
      expect(typeof lookup(c, key), `${language}: ${String(code)} → ${key}`).toBe('string');
    }
    expect(lookup(c, 'errors.siteSaid')).toContain('{{text}}');
  });

  it("keeps WordPress's code when we explain it, our diagnosis otherwise", () => {
    expect(storedErrorCode('auth_rejected', 'rest_not_logged_in')).toBe('rest_not_logged_in');
    expect(storedErrorCode('site_error', 'some_plugin_error')).toBe('site_error');
    expect(storedErrorCode('refused')).toBe('refused');
    expect(errorExplanationKey('rest_cannot_create')).toBe('errors.rest_cannot_create');
    expect(errorExplanationKey('timeout')).toBe('diagnosis.timeout');
    expect(errorExplanationKey('whatever')).toBe('errors.unknown');
  });
});

describe("the site's time zone from its REST index", () => {
  it('a city when the site chose one, else a whole-hour offset (Etc/ signs are inverted), else none', () => {
    expect(timeZoneOfIndex({ timezone_string: 'Asia/Hong_Kong', gmt_offset: 8 })).toBe('Asia/Hong_Kong');
    expect(timeZoneOfIndex({ timezone_string: '', gmt_offset: 8 })).toBe('Etc/GMT-8');
    expect(timeZoneOfIndex({ timezone_string: '', gmt_offset: '-5' })).toBe('Etc/GMT+5');
    expect(timeZoneOfIndex({ timezone_string: '', gmt_offset: 0 })).toBe('UTC');
    expect(timeZoneOfIndex({ timezone_string: 'Not/AZone', gmt_offset: 2 })).toBe('Etc/GMT-2');
    // Half hours have no Etc/ zone: better no second clock than a wrong one.
    expect(timeZoneOfIndex({ timezone_string: '', gmt_offset: 5.5 })).toBeNull();
    expect(timeZoneOfIndex({})).toBeNull();
  });
});
