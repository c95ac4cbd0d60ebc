import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postContent, prepareContent } from '../../app/services/wordpress/content.server';
import { sanitizeArticle } from '../../app/services/providers.server';
import { hasLinkTo, weaveLinks, type LinkTarget } from '../../app/utils/link-weaver';

// Internal links as publishing sends them: woven into the publication's stored
// content without a rel (links to the site's own posts), the result passes prepareContent
// unchanged and becomes paragraph blocks with the links inside; a late link woven into the block
// markup the site stores (the fix-up) adds only the anchor, and the check that makes a fix-up run
// twice harmless sees it.

const PHRASES = ['green tea', 'espresso', 'salt & pepper', '綠茶', 'cold brew'];
const FILLER = ['the', 'morning', 'cup', 'water', 'is', 'good', 'with', '咖啡', 'and'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const words = fc
  .array(fc.oneof(fc.constantFrom(...PHRASES), fc.constantFrom(...FILLER)), { minLength: 1, maxLength: 6 })
  .map((w) => w.join(' '));
const sentence = fc.tuple(words, fc.constantFrom('.', '!', '。')).map(([w, end]) => `${esc(w)}${end}`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => `<p>${s.join(' ')}</p>`);
const block = fc.oneof(
  { weight: 4, arbitrary: paragraph },
  words.map((w) => `<h2>${esc(w)}</h2>`),
  fc.array(words, { minLength: 1, maxLength: 3 }).map((items) => `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`),
);
// A publication's content: the article as generated, then as queuing stores it.
const content = fc.array(block, { minLength: 1, maxLength: 6 }).map((b) => prepareContent(sanitizeArticle(b.join('\n'))));
const targets = fc
  .uniqueArray(fc.constantFrom(...PHRASES), { minLength: 1, maxLength: PHRASES.length })
  .map((phrases): LinkTarget[] => phrases.map((p, i) => ({ url: `https://blog.example/post-${i}/`, title: p, phrases: [p] })));

const anchorsOf = (html: string) => [...html.matchAll(/<a href="https:\/\/blog\.example\/post-\d+\/">/g)].length;

describe('internal links woven at publish time', () => {
  it('pass prepareContent unchanged, carry no rel, and become links inside paragraph blocks', () => {
    let placed = 0;
    fc.assert(
      fc.property(content, targets, (html, list) => {
        const { html: out, links } = weaveLinks(html, list, { maxLinks: list.length, rel: null });
        placed += links.length;
        expect(prepareContent(out)).toBe(out);
        expect(out).not.toContain('nofollow');
        expect(anchorsOf(out)).toBe(links.length);
        const blocks = postContent(out, { classicHtml: false, marker: 'postforgetest' });
        // Every link is inside a paragraph block.
        const paragraphs = [...blocks.matchAll(/<!-- wp:paragraph[^>]*-->\n([\s\S]*?)\n<!-- \/wp:paragraph -->/g)].map((m) => m[1]!);
        expect(paragraphs.reduce((n, p) => n + anchorsOf(p), 0)).toBe(links.length);
      }),
      { numRuns: 300, seed: 26 },
    );
    expect(placed).toBeGreaterThan(100);
  });

  it('weaves a late link into stored block markup as an anchor only, once', () => {
    let placed = 0;
    fc.assert(
      fc.property(content, targets, (html, list) => {
        const [late, ...now] = list;
        const sent = postContent(weaveLinks(html, now, { maxLinks: now.length, rel: null }).html, {
          classicHtml: false,
          marker: 'postforgetest',
        });
        const { html: fixed, links } = weaveLinks(sent, [late!], { maxLinks: 1, rel: null });
        placed += links.length;
        // Only the anchor was added: the block delimiters and everything else are as the site stored them.
        expect(fixed.replace(`<a href="${late!.url}">`, '').replace(/<\/a>/g, '')).toBe(sent.replace(/<\/a>/g, ''));
        expect(hasLinkTo(fixed, late!.url)).toBe(links.length === 1);
        expect(hasLinkTo(sent, late!.url)).toBe(false);
      }),
      { numRuns: 300, seed: 2605 },
    );
    expect(placed).toBeGreaterThan(50);
  });
});
