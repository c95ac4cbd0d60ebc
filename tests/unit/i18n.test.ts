import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { languageFromAcceptHeader, normalizeLanguage } from '../../app/i18n';
import { languageFromHeaders } from '../../app/i18n.server';

const localesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../app/locales');

describe('normalizeLanguage', () => {
  it.each([
    ['zh', 'zh-HK'],
    ['zh-Hant', 'zh-HK'],
    ['zh-TW', 'zh-HK'],
    ['zh-HK', 'zh-HK'],
    ['zh-hk', 'zh-HK'],
    ['ZH_tw', 'zh-HK'],
    ['zh-Hant-HK', 'zh-HK'],
    ['en', 'en'],
    ['en-US', 'en'],
    ['en-GB', 'en'],
    [' en ', 'en'],
  ])('%s → %s', (tag, expected) => {
    expect(normalizeLanguage(tag)).toBe(expected);
  });

  it.each(['fr', 'de-DE', 'eng', 'zhx', '', null, undefined, '*'])('%s is not supported', (tag) => {
    expect(normalizeLanguage(tag)).toBeNull();
  });
});

describe('languageFromAcceptHeader', () => {
  it.each([
    ['zh-TW,zh;q=0.9,en;q=0.8', 'zh-HK'],
    ['en-US,en;q=0.9,zh-HK;q=0.8', 'en'],
    ['fr-FR, fr;q=0.9, zh-Hant;q=0.8, en;q=0.7', 'zh-HK'],
    ['fr, de;q=0.9, en;q=0.1', 'en'],
    ['en;q=0.5, zh;q=0.6', 'zh-HK'],
    ['zh;q=0, en;q=0.2', 'en'],
    ['*', null],
    ['fr, de', null],
    ['', null],
    [null, null],
  ])('%s → %s', (header, expected) => {
    expect(languageFromAcceptHeader(header)).toBe(expected);
  });

  it('keeps the header order for equal qualities', () => {
    expect(languageFromAcceptHeader('zh-HK, en')).toBe('zh-HK');
    expect(languageFromAcceptHeader('en, zh-HK')).toBe('en');
  });
});

describe('languageFromHeaders', () => {
  it('prefers the cookie, then Accept-Language, then English', () => {
    expect(languageFromHeaders('a=1; language=zh-HK', 'en')).toBe('zh-HK');
    expect(languageFromHeaders('language=en', 'zh-TW')).toBe('en');
    expect(languageFromHeaders('language=klingon', 'zh-TW')).toBe('zh-HK');
    expect(languageFromHeaders(null, 'fr')).toBe('en');
  });

  it('ignores a malformed cookie instead of throwing (`language=%` answered 500)', () => {
    expect(languageFromHeaders('language=%', 'zh-HK')).toBe('zh-HK');
    expect(languageFromHeaders('language=%E0%A4%A; other=%%', null)).toBe('en');
    expect(languageFromHeaders('=%; language=%ZZ', 'en')).toBe('en');
  });
});

/** Every key path of a catalogue, with i18next plural suffixes folded into the base key. */
function keys(node: unknown, prefix = ''): string[] {
  if (typeof node !== 'object' || node === null) return [prefix.replace(/_(zero|one|two|few|many|other)$/, '')];
  return Object.entries(node).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

describe('catalogues', () => {
  const namespaces = fs.readdirSync(path.join(localesDir, 'en')).filter((f) => f.endsWith('.json'));

  it('exist in both languages with the same files', () => {
    expect(namespaces.length).toBeGreaterThan(0);
    expect(
      fs
        .readdirSync(path.join(localesDir, 'zh-HK'))
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual([...namespaces].sort());
  });

  it.each(namespaces)('%s has identical key sets in en and zh-HK', (file) => {
    const read = (lang: string) => JSON.parse(fs.readFileSync(path.join(localesDir, lang, file), 'utf8')) as unknown;
    const en = [...new Set(keys(read('en')))].sort();
    const zh = [...new Set(keys(read('zh-HK')))].sort();
    expect(zh).toEqual(en);
  });

  // Chinese has one plural form: i18next asks zh-HK for `_other` only, whatever the count, so a
  // `_one` text there would never be shown and the `_other` text must read right for 1 too.
  it.each(namespaces)('%s: zh-HK has no `_one` text and an `_other` for every en plural', (file) => {
    const read = (lang: string) => JSON.parse(fs.readFileSync(path.join(localesDir, lang, file), 'utf8')) as unknown;
    const paths = (node: unknown, prefix = ''): string[] =>
      typeof node === 'object' && node !== null
        ? Object.entries(node).flatMap(([k, v]) => paths(v, prefix ? `${prefix}.${k}` : k))
        : [prefix];
    const zh = new Set(paths(read('zh-HK')));
    expect([...zh].filter((key) => key.endsWith('_one'))).toEqual([]);
    const plurals = paths(read('en')).filter((key) => key.endsWith('_one') && paths(read('en')).includes(key.replace(/_one$/, '_other')));
    expect(plurals.map((key) => key.replace(/_one$/, '_other')).filter((key) => !zh.has(key))).toEqual([]);
  });

  it('zh-HK plural rules have only `other`', () => {
    expect(new Intl.PluralRules('zh-HK').resolvedOptions().pluralCategories).toEqual(['other']);
  });

  it.each(namespaces)('%s has no empty texts', (file) => {
    for (const lang of ['en', 'zh-HK']) {
      const flat = (node: unknown): string[] =>
        typeof node === 'object' && node !== null ? Object.values(node).flatMap(flat) : [String(node)];
      const values = flat(JSON.parse(fs.readFileSync(path.join(localesDir, lang, file), 'utf8')));
      expect(values.filter((v) => v.trim() === '')).toEqual([]);
    }
  });
});
