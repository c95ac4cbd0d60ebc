import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { languages, namespaces } from '../../app/i18n';
import { createTranslator, type Catalogue } from '../../app/utils/translator';

// The page translator (utils/translator.ts) stands in for i18next in the browser and the server
// render (14 KB gzip less on every page). These tests hold it to i18next's answers on
// the real catalogues, and keep out of the catalogues what it does not implement.

const localesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../app/locales');

function catalogue(language: string): Catalogue {
  return Object.fromEntries(
    namespaces.map((ns) => [ns, JSON.parse(fs.readFileSync(path.join(localesDir, language, `${ns}.json`), 'utf8')) as unknown]),
  );
}

function i18nextFor(language: string, resources: Catalogue) {
  const i18n = createInstance();
  void i18n.init({
    lng: language,
    fallbackLng: 'en',
    resources: { [language]: resources as never },
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    initImmediate: false,
  });
  return i18n;
}

/** Every leaf key of a namespace, with the plural suffix taken off (`a.b_one` → `a.b`). */
function keysOf(tree: unknown, prefix = ''): string[] {
  if (typeof tree !== 'object' || tree === null) return [prefix];
  return Object.entries(tree).flatMap(([k, v]) => keysOf(v, prefix ? `${prefix}.${k}` : k));
}

const values = { name: 'Ann', max: 3, site: 'blog.example', email: 'a@b.c', credits: 12, page: 2, minutes: 5, error: 'E', date: 'D' };

describe.each(languages)('translator in %s answers as i18next does', (language) => {
  const resources = catalogue(language);
  const reference = i18nextFor(language, resources);
  const ours = createTranslator(language, resources, { defaultNS: 'common' });

  it.each(namespaces)('every key of %s, with and without values and counts', (ns) => {
    const expected = reference.getFixedT(language, ns);
    const actual = ours.getFixedT(null, ns);
    const keys = [...new Set(keysOf(resources[ns]).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')))];
    expect(keys.length).toBeGreaterThan(0);
    // Twice: the second pass answers from the texts the first one kept.
    for (const pass of [1, 2]) {
      for (const key of keys) {
        expect(actual(key), `pass ${pass}`).toBe(expected(key));
        expect(actual(key, values)).toBe(expected(key, values));
        for (const count of [0, 1, 2, 7]) expect(actual(key, { ...values, count })).toBe(expected(key, { ...values, count }));
        expect(actual(key, { ...values, name: `other ${pass}`, count: 3 })).toBe(
          expected(key, { ...values, name: `other ${pass}`, count: 3 }),
        );
      }
    }
  });

  it('namespace prefixes, defaults, key prefixes, key lists, missing and undefined values', () => {
    const cases: [string | string[], Record<string, unknown>?][] = [
      ['workspace:form.proFeature'],
      ['wordpress:publish.open'],
      ['no.such.key'],
      ['no.such.key', { defaultValue: 'Fallback {{name}}', name: 'Ann' }],
      ['no.such.key', { defaultValue: '' }],
      ['missing: a sentence, not a path'],
      ['loading', { defaultValue: 'Loading…' }],
      [['no.such', 'skipToContent']],
      [['no.such', 'also.missing']],
      ['meta.appTitle', { ns: 'common' }],
      ['errors', {}],
    ];
    for (const [key, options] of cases) expect(ours.t(key, options)).toBe(reference.t(key as string, options as never));
    expect(ours.t('no.such', 'Default text')).toBe(reference.t('no.such', 'Default text'));
    // A variable the text names but the call does not give stays as written; one given as undefined is empty.
    const withValue = ours.getFixedT(null, 'common');
    const key = keysOf(resources.common).find((k) =>
      /{{name}}/.test(String(k.split('.').reduce<unknown>((n, p) => (n as never)?.[p], resources.common))),
    );
    if (key) {
      expect(withValue(key)).toBe(reference.getFixedT(language, 'common')(key));
      expect(withValue(key, { name: undefined })).toBe(reference.getFixedT(language, 'common')(key, { name: undefined }));
    }
    const prefixed = ours.getFixedT(null, 'workspace', 'form');
    expect(prefixed('start')).toBe(reference.getFixedT(language, 'workspace', 'form')('start'));
  });

  it('sees a namespace added later', () => {
    const late = createTranslator(language, { common: resources.common as Catalogue }, { defaultNS: 'common' });
    const t = late.getFixedT(null, 'workspace');
    expect(t('form.start')).toBe('form.start');
    let added = 0;
    late.store.on('added', () => added++);
    late.addResourceBundle(language, 'workspace', resources.workspace as Catalogue, true, true);
    expect(added).toBe(1);
    expect(t('form.start')).toBe(reference.getFixedT(language, 'workspace')('form.start'));
  });
});

describe('catalogues use only what the page translator implements', () => {
  it.each(languages)('%s: no $t() nesting, {{- x}}, {{x, format}} or context keys', (language) => {
    for (const ns of namespaces) {
      const text = fs.readFileSync(path.join(localesDir, language, `${ns}.json`), 'utf8');
      expect(text, `${language}/${ns}`).not.toMatch(/\$t\(|{{-|{{[^}]*,[^}]*}}|_(male|female)"/);
    }
  });
});
