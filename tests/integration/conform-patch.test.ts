/**
 * The patch of @conform-to/react (patches/@conform-to+react+1.21.1.patch, docs/development.md "Patched packages"):
 * a field builds its metadata once per form state, not once per property read, and renders alike.
 */
import { getInputProps, getSelectProps, useForm } from '@conform-to/react';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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

  it.each(['context.js', 'context.mjs'])('records each read name once per render, without copying the lists (%s)', async (file) => {
    // Not exported by the package: the patched file itself (the server's build and the browser bundle's).
    const dist = path.dirname(createRequire(import.meta.url).resolve('@conform-to/react'));
    const { updateSubjectRef } = (await import(pathToFileURL(path.join(dist, file)).href)) as {
      updateSubjectRef: (ref: { current: Record<string, unknown> }, subject: string, scope: string, name: string) => void;
    };
    const ref = { current: { pendingIntents: true } as Record<string, unknown> };
    updateSubjectRef(ref, 'key', 'name', 'title');
    const names = (ref.current.key as { name: string[] }).name;
    for (const name of ['title', 'tone', 'title', 'tone', 'model']) updateSubjectRef(ref, 'key', 'name', name);
    updateSubjectRef(ref, 'error', 'name', 'tone');
    // Unpatched, every read copied the subject and its list: ['title', 'title', 'tone', ...] in a new array.
    expect(ref.current.key).toEqual({ name: ['title', 'tone', 'model'] });
    expect((ref.current.key as { name: string[] }).name).toBe(names);
    expect(ref.current.error).toEqual({ name: ['tone'] });
    expect(ref.current.pendingIntents).toBe(true);
  });

  it('gives one field object per name for a render, reading the current state', () => {
    let same = false;
    let errorsSeen: unknown = 'unread';
    function Form() {
      const [, fields] = useForm<{ title: string }>({ id: 'g', defaultValue: { title: 'Hi' } });
      // Unpatched, each read of fields.title built a new field (and its metadata).
      same = fields.title === fields.title;
      errorsSeen = fields.title.errors;
      return createElement('input', { name: fields.title.name, defaultValue: fields.title.initialValue as string });
    }
    expect(renderToString(createElement(Form))).toBe('<input name="title" value="Hi"/>');
    expect(same).toBe(true);
    expect(errorsSeen).toBeUndefined();
  });
});
