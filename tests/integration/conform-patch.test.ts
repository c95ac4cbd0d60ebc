/**
 * The patch of @conform-to/react (patches/@conform-to+react+1.21.1.patch, README "Patched packages"):
 * a field builds its metadata once per form state, not once per property read, and renders alike.
 */
import { getInputProps, getSelectProps, useForm } from '@conform-to/react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

function TestForm({ onProps }: { onProps: (count: number) => void }) {
  const [form, fields] = useForm<{ title: string; tone: string }>({ id: 'f', defaultValue: { title: 'Hello', tone: 'calm' } });
  const title = fields.title;
  const tone = fields.tone;
  const before = proxies;
  const titleProps = getInputProps(title, { type: 'text' });
  const toneProps = getSelectProps(tone);
  onProps(proxies - before);
  const { key: titleKey, ...titleRest } = titleProps;
  const { key: toneKey, ...toneRest } = toneProps;
  return createElement(
    'form',
    { id: form.id },
    createElement('input', { key: titleKey ?? undefined, ...titleRest }),
    createElement('select', { key: toneKey ?? undefined, ...toneRest }, createElement('option', { value: 'calm' }, 'Calm')),
  );
}

let proxies = 0;

describe('patched @conform-to/react', () => {
  it('builds a field’s metadata once per render, not per property read, and renders the same props', () => {
    const RealProxy = globalThis.Proxy;
    globalThis.Proxy = new RealProxy(RealProxy, {
      construct(target, args) {
        proxies++;
        return Reflect.construct(target, args);
      },
    });
    let built = -1;
    let html: string;
    try {
      html = renderToString(createElement(TestForm, { onProps: (n) => (built = n) }));
    } finally {
      globalThis.Proxy = RealProxy;
    }
    // Unpatched, each of the ~25 reads of the two fields' props built a metadata proxy.
    expect(built).toBeGreaterThanOrEqual(0);
    expect(built).toBeLessThanOrEqual(2);
    expect(html).toMatch(/<input id="f-title" name="title"[^>]* type="text"[^>]* value="Hello"/);
    expect(html).toMatch(/<select id="f-tone" name="tone"/);
  });
});
