import fc from 'fast-check';
import { parseDocument, DomUtils } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { sanitizeArticle } from '../../app/services/providers.server';
import { weaveLinks, type LinkTarget } from '../../app/utils/link-weaver';

// The weaver's promises over generated articles (headings, paragraphs with inline markup and links
// of their own, quotes, figures with captions, CJK text, entities): the output is the input plus
// anchors only, each anchor's text is in its sentence, nothing lands in a heading, link, caption or
// the first sentence, the sanitizer leaves the output as it is, at most k links, no target twice.

const PHRASES = ['coffee beans', 'green tea', 'salt & pepper', 'Cold Brew', '綠茶', 'espresso', 'milk foam', 'tea'];
const FILLER = ['the', 'a', 'morning', 'cup', 'water', 'roast', 'is', 'good', 'with', '3.5', 'grams', '咖啡', 'and'];
const word = fc.oneof(fc.constantFrom(...PHRASES), fc.constantFrom(...FILLER));
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((w) => w.join(' '));
const inline = fc.oneof(
  { weight: 4, arbitrary: words(1, 6).map(escapeText) },
  words(1, 3).map((w) => `<strong>${escapeText(w)}</strong>`),
  words(1, 3).map((w) => `<a href="https://elsewhere.example/x" rel="noopener noreferrer nofollow">${escapeText(w)}</a>`),
  words(1, 2).map((w) => `<code>${escapeText(w)}</code>`),
);
const sentence = fc
  .tuple(fc.array(inline, { minLength: 1, maxLength: 3 }), fc.constantFrom('.', '!', '?', '。'))
  .map(([parts, end]) => `${parts.join(' ')}${end}`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => `<p>${s.join(' ')}</p>`);
const block = fc.oneof(
  { weight: 5, arbitrary: paragraph },
  fc.tuple(fc.constantFrom('h2', 'h3'), words(1, 4)).map(([h, w]) => `<${h}>${escapeText(w)}</${h}>`),
  paragraph.map((p) => `<blockquote>${p}</blockquote>`),
  words(1, 5).map(
    (w) => `<figure><img src="/images/0b6f3c3e-8a4e-4f2a-9d55-1f2e3a4b5c6d" alt="x" /><figcaption>${escapeText(w)}</figcaption></figure>`,
  ),
  fc
    .array(words(1, 4), { minLength: 1, maxLength: 3 })
    .map((items) => `<ul>${items.map((i) => `<li>${escapeText(i)}</li>`).join('')}</ul>`),
);
const article = fc.array(block, { minLength: 1, maxLength: 8 }).map((b) => sanitizeArticle(b.join('\n')));
const targets = fc
  .uniqueArray(fc.constantFrom(...PHRASES), { minLength: 1, maxLength: PHRASES.length })
  .chain((phrases) =>
    fc.tuple(fc.constant(phrases), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: phrases.length, maxLength: phrases.length })),
  )
  .map(([phrases, ids]): LinkTarget[] =>
    // Some targets share a URL (the weaver must link each URL once); phrases vary per target.
    phrases.map((p, i) => ({ url: `https://site.test/post-${ids[i]}`, title: `Post ${ids[i]}`, phrases: [p] })),
  );

const CLOSED = new Set(['a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'figcaption', 'pre', 'code', 'blockquote']);
const plain = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();

describe('weaveLinks', () => {
  it('keeps every promise over generated articles', () => {
    let placedTotal = 0;
    fc.assert(
      fc.property(article, targets, fc.integer({ min: 0, max: 4 }), fc.integer({ min: -1, max: 5 }), (html, targetList, k, self) => {
        fc.pre(sanitizeArticle(html) === html);
        const selfUrl = self >= 0 ? `https://site.test/post-${self}` : null;
        const { html: out, links } = weaveLinks(html, targetList, { maxLinks: k, selfUrl });
        placedTotal += links.length;
        expect(links.length).toBeLessThanOrEqual(k);
        const urls = links.map((l) => l.url);
        expect(new Set(urls).size).toBe(urls.length);
        if (selfUrl) expect(urls).not.toContain(selfUrl);
        // The sanitizer keeps the output byte for byte.
        expect(sanitizeArticle(out)).toBe(out);
        // Only anchors were added: removing them gives back the input exactly.
        const stripped = out.replace(/<a href="https:\/\/site\.test\/post-\d+" rel="noopener noreferrer nofollow">([\s\S]*?)<\/a>/g, '$1');
        expect(stripped).toBe(html);
        // Each new anchor sits in a paragraph, outside headings, links, captions, code and quotes,
        // and its text is in the sentence reported for it, which is in the output's paragraph text.
        const doc = parseDocument(out);
        const anchors = DomUtils.findAll((el) => el.name === 'a' && el.attribs.href!.startsWith('https://site.test/'), doc.children);
        expect(anchors.length).toBe(links.length);
        for (const a of anchors) {
          let paragraph: typeof a | null = null;
          for (let p = a.parent; p && 'name' in p; p = p.parent) {
            expect(CLOSED.has(p.name)).toBe(false);
            if (p.name === 'p') paragraph = p;
          }
          expect(paragraph).not.toBeNull();
          const link = links.find((l) => l.url === a.attribs.href)!;
          expect(plain(DomUtils.textContent(a))).toBe(plain(link.anchor));
          expect(link.sentence.toLowerCase()).toContain(link.anchor.toLowerCase());
          expect(plain(DomUtils.textContent(paragraph!))).toContain(plain(link.sentence));
        }
        // The first sentence is untouched: inside the first paragraph, a sentence has ended before any new anchor.
        const firstP = DomUtils.findOne((el) => el.name === 'p' && DomUtils.textContent(el).trim() !== '', doc.children);
        for (const a of anchors) {
          let p = a.parent;
          while (p && 'name' in p && p.name !== 'p') p = p.parent;
          if (p !== firstP) continue;
          const start = out.indexOf(`<a href="${a.attribs.href}"`);
          const before = plain(out.slice(out.lastIndexOf('<p>', start), start).replace(/<[^>]*>/g, ''));
          expect(before).toMatch(/[.!?](\s|$)|。/);
        }
      }),
      { numRuns: 400 },
    );
    // The generator places links often enough for the properties to mean something.
    expect(placedTotal).toBeGreaterThan(100);
  });

  it('links a phrase in its sentence, case-insensitively, and leaves headings, captions and the first sentence alone', () => {
    const html = sanitizeArticle(
      '<h2>Coffee beans</h2><p>Coffee beans are the start. Good coffee beans need care. Green tea is different.</p>' +
        '<figure><img src="/images/0b6f3c3e-8a4e-4f2a-9d55-1f2e3a4b5c6d" alt="" /><figcaption>green tea leaves</figcaption></figure>' +
        '<p>Try <a href="https://elsewhere.example/">green tea</a> or teapots. A tea ceremony, then tea.</p>',
    );
    const { html: out, links } = weaveLinks(
      html,
      [
        { url: 'https://site.test/beans', title: 'Beans', phrases: ['Coffee Beans'] },
        { url: 'https://site.test/beans', title: 'Beans again', phrases: ['tea'] },
        { url: 'https://site.test/self', title: 'Me', phrases: ['green tea'] },
        { url: 'https://site.test/tea', title: 'Tea', phrases: ['tea'] },
        { url: 'https://site.test/green', title: 'Green', phrases: ['green tea'] },
      ],
      { selfUrl: 'https://site.test/self/' },
    );
    expect(links).toEqual([
      { anchor: 'coffee beans', url: 'https://site.test/beans', title: 'Beans', sentence: 'Good coffee beans need care.' },
      { anchor: 'tea', url: 'https://site.test/tea', title: 'Tea', sentence: 'Green tea is different.' },
    ]);
    expect(out).toContain('<h2>Coffee beans</h2><p>Coffee beans are the start. Good <a href="https://site.test/beans"');
    expect(out).toContain('<figcaption>green tea leaves</figcaption>');
    expect(out).toContain('Green <a href="https://site.test/tea" rel="noopener noreferrer nofollow">tea</a> is different.');
    expect(out).toContain('or teapots. A tea ceremony');
  });

  it('handles entities and CJK text, and skips relative URLs', () => {
    const html = sanitizeArticle('<p>開始。我們喝綠茶。Use salt &amp; pepper here. More salt &amp; pepper.</p>');
    const { html: out, links } = weaveLinks(html, [
      { url: '/relative', title: 'Rel', phrases: ['綠茶'] },
      { url: 'https://site.test/tea', title: '茶', phrases: ['綠茶'] },
      { url: 'https://site.test/salt?a=1&b=2', title: 'Salt', phrases: ['Salt & Pepper'] },
    ]);
    expect(links.map((l) => [l.anchor, l.sentence])).toEqual([
      ['綠茶', '我們喝綠茶。'],
      ['salt & pepper', 'Use salt & pepper here.'],
    ]);
    expect(out).toContain('<a href="https://site.test/salt?a=1&amp;b=2" rel="noopener noreferrer nofollow">salt &amp; pepper</a> here.');
    expect(sanitizeArticle(out)).toBe(out);
  });
});
