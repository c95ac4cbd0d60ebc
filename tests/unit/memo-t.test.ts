import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { memoiseTranslations } from '../../app/utils/memo-t';

function instance() {
  const i18n = createInstance();
  void i18n.init({
    lng: 'en',
    resources: { en: { common: { hello: 'Hello', greet: 'Hi {{name}}', item_one: '{{count}} item', item_other: '{{count}} items' } } },
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    initImmediate: false,
  });
  memoiseTranslations(i18n);
  return i18n;
}

describe('memoiseTranslations (issue 11: t() was a tenth of /app CPU)', () => {
  it('answers as i18next does, static calls and calls with values alike', () => {
    const i18n = instance();
    const t = i18n.getFixedT('en', 'common');
    for (let round = 0; round < 2; round++) {
      expect(t('hello')).toBe('Hello');
      expect(t('missing', { defaultValue: 'Fallback' })).toBe('Fallback');
      expect(i18n.t('missing', 'Other default')).toBe('Other default');
      expect(t('greet', { name: `Ann${round}` })).toBe(`Hi Ann${round}`);
      expect(t('item', { count: round + 1 })).toBe(round ? '2 items' : '1 item');
    }
  });

  it('sees a namespace added later and a changed text', () => {
    const i18n = instance();
    const t = i18n.getFixedT('en', 'workspace');
    expect(t('title', { defaultValue: 'none' })).toBe('none');
    i18n.addResourceBundle('en', 'workspace', { title: 'Workspace' }, true, true);
    expect(t('title', { defaultValue: 'none' })).toBe('Workspace');
    i18n.addResourceBundle('en', 'workspace', { title: 'Desk' }, true, true);
    expect(t('title', { defaultValue: 'none' })).toBe('Desk');
  });

  it('keeps no values of a call in its memory', () => {
    const i18n = instance();
    const seen: unknown[] = [];
    const original = Map.prototype.set;
    Map.prototype.set = function (this: Map<unknown, unknown>, key: unknown, value: unknown) {
      seen.push(key);
      return original.call(this, key, value);
    };
    try {
      i18n.t('greet', { name: 'Secret Name' });
    } finally {
      Map.prototype.set = original;
    }
    expect(seen.some((k) => typeof k === 'string' && k.includes('Secret Name'))).toBe(false);
  });
});
