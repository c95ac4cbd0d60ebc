import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareContent } from '../../app/services/wordpress/content.server';
import { markdownToArticle } from '../../app/services/providers.server';
import { BLOCK_NAMES, htmlToBlocks } from '../../app/utils/gutenberg-blocks';
import { cleanSeo, seoWithFallbacks, slugify, splitSeoBlock, truncateAtWord } from '../../app/utils/seo-fields';
import { editedTitle, withoutTitleHeading } from '../../app/utils/title-heading';
import { faqEntries, faqScript } from '../../app/utils/faq-schema';

// The pure halves of blocks and SEO fields: HTML → block markup (WordPress's own parser checks it in
// tests/integration/wordpress-blocks-seo.test.ts), and the SEO fields' parsing and fallbacks.

/** What a reader sees: the block delimiters and WordPress's block classes taken away. */
function visible(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/\s+class="(?:wp-block-[\w-]+|wp-element-caption|wp-block-separator has-alpha-channel-opacity)"/g, '')
    .replace(/<figure><table>([\s\S]*?)<\/table><\/figure>/g, '<table>$1</table>')
    .replace(/\s*\/>/g, '>')
    .replace(/\s*(<[^>]+>)\s*/g, '$1')
    .trim();
}

/** What lies outside every block at the top level (must be whitespace only). */
function topLevelText(markup: string): string {
  let depth = 0;
  let at = 0;
  let outside = '';
  for (const m of markup.matchAll(/<!-- (\/?)wp:[\w/-]+(?: \{[^}]*\})? (\/?)-->/g)) {
    if (depth === 0) outside += markup.slice(at, m.index);
    if (m[1]) depth--;
    else if (!m[2]) depth++;
    at = m.index! + m[0].length;
  }
  return (outside + (depth === 0 ? markup.slice(at) : '')).trim();
}

const word = fc.constantFrom('alpha', 'beta', 'gamma', '說明', 'x &amp; y', '1 &lt; 2');
const inline = fc.oneof(
  word,
  word.map((w) => `<strong>${w}</strong>`),
  word.map((w) => `<em>${w}</em>`),
  word.map((w) => `<a href="https://example.org/${encodeURIComponent(w)}">${w}</a>`),
);
const text = fc.array(inline, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' '));
const item = text.map((t) => `<li>${t}</li>`);
const list = fc
  .tuple(fc.constantFrom('ul', 'ol'), fc.array(item, { minLength: 1, maxLength: 4 }))
  .map(([tag, items]) => `<${tag}>${items.join('')}</${tag}>`);
const block = fc.oneof(
  text.map((t) => `<p>${t}</p>`),
  fc.tuple(fc.integer({ min: 2, max: 6 }), text).map(([n, t]) => `<h${n}>${t}</h${n}>`),
  list,
  fc.tuple(text, list).map(([t, l]) => `<ul><li>${t}${l}</li></ul>`),
  text.map((t) => `<blockquote><p>${t}</p></blockquote>`),
  word.map((w) => `<figure><img src="https://example.org/i.png" alt="${w}"><figcaption>${w}</figcaption></figure>`),
  fc
    .array(word, { minLength: 1, maxLength: 3 })
    .map(
      (cells) =>
        `<table><thead><tr>${cells.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody><tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr></tbody></table>`,
    ),
  word.map((w) => `<pre><code>${w}</code></pre>`),
  fc.constant('<hr>'),
);

describe('htmlToBlocks', () => {
  it('every article: only our core blocks, balanced delimiters, and the same visible HTML', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 12 }), (blocks) => {
        const html = prepareContent(blocks.join(''));
        const out = htmlToBlocks(html, { marker: 'postforge0123' });
        const opens = [...out.matchAll(/<!-- wp:([\w/-]+)/g)].map((m) => `core/${m[1]}`);
        const closes = [...out.matchAll(/<!-- \/wp:([\w/-]+) -->/g)].map((m) => `core/${m[1]}`);
        for (const n of opens) expect(BLOCK_NAMES).toContain(n);
        expect(closes.sort()).toEqual([...opens].sort());
        expect(out.match(/postforge0123/g)).toHaveLength(1);
        // No free HTML between top-level blocks (that would be a Classic block).
        expect(topLevelText(out)).toBe('');
        expect(visible(out)).toBe(visible(html));
      }),
      { numRuns: 300 },
    );
  });

  it('a generated article (Markdown from the provider) converts to blocks', () => {
    const { html } = markdownToArticle('# T\n\nIntro.\n\n## H\n\n- a\n- b\n\n1. one\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n', 'T');
    const out = htmlToBlocks(prepareContent(html));
    expect([...out.matchAll(/<!-- wp:([\w-]+)/g)].map((m) => m[1])).toEqual([
      'paragraph',
      'heading',
      'list',
      'list-item',
      'list-item',
      'list',
      'list-item',
      'quote',
      'paragraph',
      'table',
    ]);
  });

  it('loose list items (paragraphs inside <li>) become lines; stray text a paragraph; unknown elements core/html', () => {
    expect(htmlToBlocks('<ul><li><p>a</p><p>b</p></li></ul>')).toContain('<li>a<br>b</li>');
    expect(htmlToBlocks('just text')).toBe('<!-- wp:paragraph -->\n<p>just text</p>\n<!-- /wp:paragraph -->');
    expect(htmlToBlocks('<dl><dt>x</dt></dl>')).toBe('<!-- wp:html -->\n<dl><dt>x</dt></dl>\n<!-- /wp:html -->');
    expect(htmlToBlocks('')).toBe('');
  });
});

describe('SEO fields', () => {
  it('splits the block after the article, tolerating Markdown around the labels', () => {
    const answer = '# T\n\nBody.\n\n**---SEO---**\n- **Meta description:** "Short one."\n- Slug: `my-slug`\n- Focus Keyphrase: key words\n';
    expect(splitSeoBlock(answer)).toEqual({
      article: '# T\n\nBody.',
      seo: { metaDescription: 'Short one.', slug: 'my-slug', focusKeyword: 'key words' },
    });
    expect(splitSeoBlock('# T\n\nNo block.')).toEqual({ article: '# T\n\nNo block.', seo: {} });
  });

  it('descriptions are cut at a word to 155 characters; slugs are lowercase words and hyphens', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const d = truncateAtWord(s, 155);
        expect([...d].length).toBeLessThanOrEqual(155);
        const slug = slugify(s);
        expect(slug).toMatch(/^(?:[\p{Ll}\p{Lo}\p{Lm}\p{N}]+(?:-[\p{Ll}\p{Lo}\p{Lm}\p{N}]+)*)?$/u);
        expect(cleanSeo({ metaDescription: s }).metaDescription).toBe(d);
      }),
    );
    expect(truncateAtWord('one two three four', 12)).toBe('one two…');
    expect(slugify('Crème Brûlée: 10 Tips!')).toBe('creme-brulee-10-tips');
    expect(slugify('香港美食指南')).toBe('香港美食指南');
  });

  it('fallbacks: slug from the title, description from the first paragraph, keyword from the topic keywords', () => {
    expect(
      seoWithFallbacks(
        { slug: '', metaDescription: '' },
        { title: 'A Title', html: '<h2>x</h2><p>First <b>para</b>.</p><p>2</p>', keywords: 'k1, k2' },
      ),
    ).toEqual({ metaDescription: 'First para.', slug: 'a-title', focusKeyword: 'k1', seoTitle: 'A Title' });
  });

  it('the SEO title: parsed from the block, cut at a word to 60 characters, else the title', () => {
    expect(splitSeoBlock('Body.\n---SEO---\n**SEO title:** Short and sweet\nSlug: s').seo.seoTitle).toBe('Short and sweet');
    const long = 'Word '.repeat(20).trim();
    expect([...cleanSeo({ seoTitle: long }).seoTitle].length).toBeLessThanOrEqual(60);
    expect(seoWithFallbacks({}, { title: long, html: '' }).seoTitle).toMatch(/^Word Word .*…$/);
  });
});

describe('title and H1', () => {
  it('an edit: a leading H1 is the title unless the title changed too; the body keeps no H1', () => {
    expect(editedTitle('Old', 'Old', '<h1>New &amp; better</h1><p>x</p>')).toEqual({ title: 'New & better', html: '<p>x</p>' });
    expect(editedTitle('Old', 'Typed', '<h1>Old</h1><p>x</p>')).toEqual({ title: 'Typed', html: '<p>x</p>' });
    expect(editedTitle('Old', undefined, '<p>x</p>')).toEqual({ title: 'Old', html: '<p>x</p>' });
    expect(editedTitle('Old', undefined, '<h1> </h1><p>x</p>')).toEqual({ title: 'Old', html: '<p>x</p>' });
  });

  it('publishing: a leading H1 repeating the title goes, any other H1 becomes an H2', () => {
    expect(withoutTitleHeading('<h1>My  Title</h1><p>x</p>', 'my title')).toBe('<p>x</p>');
    expect(withoutTitleHeading('<h1>Other</h1><p>x</p><h1 id="a">Later</h1>', 'My title')).toBe(
      '<h2>Other</h2><p>x</p><h2 id="a">Later</h2>',
    );
  });
});

describe('FAQ structured data', () => {
  it('questions are the FAQ section deeper headings, answers the text up to the next heading', () => {
    const html =
      '<h2>Intro</h2><p>a</p><h2>FAQ</h2><h3>Is it hard?</h3><p>No.</p><h3>Empty?</h3><h3>Lists?</h3><ul><li>One</li><li>Two</li></ul><h2>End</h2><h3>Not a question</h3><p>z</p>';
    expect(faqEntries(html)).toEqual([
      { question: 'Is it hard?', answer: 'No.' },
      { question: 'Lists?', answer: 'One Two' },
    ]);
    expect(faqEntries('<h2>常見問題</h2><h3>難嗎？</h3><p>不難。</p>')).toEqual([{ question: '難嗎？', answer: '不難。' }]);
    expect(faqScript('<h2>Intro</h2><p>No FAQ here</p>')).toBeNull();
    expect(faqScript('<h2>FAQ</h2><p>Only text</p>')).toBeNull();
    // Nothing in the text can close the script.
    const script = faqScript('<h2>FAQ</h2><h3>A &lt;/script&gt; question?</h3><p>x</p>')!;
    expect(script).not.toContain('</script><');
    expect(JSON.parse(/>(.*)<\/script>$/.exec(script)![1]!).mainEntity[0].name).toBe('A </script> question?');
  });
});
