import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { htmlToText, markdownToArticle, plainText, sanitizeArticle, sanitizedHtmlToText } from '../../app/services/providers.server';
import { madeUpArticle, seoBlock } from '../support/quality-articles';
import { wordPressText } from '../../app/services/wordpress/content.server';

// What a stored article may hold: only our own images, only
// absolute http(s) links, one h1 per page (the post's title), and titles as plain text.

const OWN = '/images/0b6f7c1e-8a39-4c1f-9d2b-3f4a5b6c7d8e';

describe('sanitizeArticle', () => {
  it('keeps our own images and drops every other (broken src=x, tracking pixels, data:, relative)', () => {
    const html = sanitizeArticle(
      `<p>a<img src=x>b</p><img src="https://tracker.example/p.gif" width="1" height="1">` +
        `<img src="data:image/png;base64,AAAA"><img src="/api/logout"><img src="//evil.example/x.png">` +
        `<figure><img src="${OWN}" alt="ours"></figure>`,
    );
    expect(html).toBe(`<p>ab</p><figure><img src="${OWN}" alt="ours" /></figure>`);
  });

  it('keeps absolute http(s) links; any other keeps its text in an inert <a> without href', () => {
    const html = sanitizeArticle(
      '<p><a href="/api/logout">out</a> <a href="api/logout">rel</a> <a href="#top">hash</a> ' +
        '<a href="javascript:alert(1)">js</a> <a href="mailto:a@b.c">mail</a> <a href="//evil.example">pr</a> ' +
        '<a href=" https://example.com/a?b=1 " onclick="x()">ok</a> <a href="HTTP://EXAMPLE.COM">up</a></p>',
    );
    expect(html).toBe(
      '<p><a>out</a> <a>rel</a> <a>hash</a> <a>js</a> <a>mail</a> <a>pr</a> <a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow">ok</a> ' +
        '<a href="HTTP://EXAMPLE.COM" rel="noopener noreferrer nofollow">up</a></p>',
    );
  });
});

describe('markdownToArticle: one h1, the title', () => {
  it('takes a leading HTML <h1> as the title when the Markdown has none, and drops it from the body', () => {
    const a = markdownToArticle('<h1>Growing <em>tomatoes</em></h1>\n\nSome text.', 'the topic');
    expect(a.title).toBe('Growing tomatoes');
    expect(a.html).not.toMatch(/<h1/);
    expect(a.html).toContain('Some text.');
  });

  it('drops a leading <h1> that repeats the Markdown title and demotes any other h1 to h2', () => {
    const a = markdownToArticle('# Growing Tomatoes\n\n<h1>growing  tomatoes</h1>\n\nIntro.\n\n# Another part\n\nMore.', 'topic');
    expect(a.title).toBe('Growing Tomatoes');
    expect(a.html).not.toMatch(/<h1|growing {1,2}tomatoes/i);
    expect(a.html).toContain('<h2>Another part</h2>');
  });

  it('demotes a leading h1 that differs from the title (setext heading after a Markdown title)', () => {
    const a = markdownToArticle('# The title\n\nA section\n=========\n\nText.', 'topic');
    expect(a.title).toBe('The title');
    expect(a.html.startsWith('<h2>A section</h2>')).toBe(true);
  });

  it('keeps no broken image or relative link from the provider', () => {
    const a = markdownToArticle(
      '# T\n\n<img src=x> ![pixel](https://tracker.example/p.gif) [out](/api/logout) [ok](https://example.com)',
      't',
    );
    expect(a.html).not.toMatch(/<img|\/api\/logout|tracker/);
    expect(a.html).toContain('<a href="https://example.com" rel="noopener noreferrer nofollow">ok</a>');
  });
});

describe('titles and excerpts as plain text', () => {
  it('plainText drops markup and scripts, decodes entities, keeps one line', () => {
    expect(plainText('Tips &amp; <b>tricks</b>\n<script>alert(1)</script><img src=x onerror=alert(1)> 1 < 2')).toBe('Tips & tricks 1 < 2');
  });

  it('text without a tag or an entity reads as the parser reads it (htmlToText skips the parse)', () => {
    // Wrapped in an inline tag, the same text goes through the parser.
    const same = (text: string) => {
      expect(htmlToText(text)).toBe(htmlToText(`<span>${text}</span>`));
    };
    const unit = fc.constantFrom('a', 'Z', ' ', '\n', '\r', '\t', '\u00a0', '>', '"', "'", '=', '/', ';', '#', '\u0000', 'é', '綠', '😀');
    fc.assert(fc.property(fc.string({ unit, maxLength: 60 }), same), { numRuns: 400 });
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((t) => !/[<&]/.test(t)),
        same,
      ),
      { numRuns: 300 },
    );
    expect(plainText('Green tea:  a "practical" guide > 2024\n')).toBe('Green tea: a "practical" guide > 2024');
  });

  it('wordPressText escapes what WordPress would render as markup', () => {
    expect(wordPressText('<b>Bold</b> & <i>1 < 2</i><script>alert(1)</script>')).toBe('Bold &amp; 1 &lt; 2');
    expect(wordPressText('Don\'t "quote"')).toBe('Don\'t "quote"');
  });
});

describe('sanitizedHtmlToText', () => {
  it('reads what sanitizeArticle made as htmlToText does, without parsing it again', () => {
    const markdowns = [
      madeUpArticle('green tea', { seed: 3 }) + seoBlock('green tea'),
      madeUpArticle('Käse & Brot', { seed: 7, words: 300 }),
      '# A < B & "C"\n\nText with &amp; &lt;b&gt; &nbsp; &#x27;x&#x27; &copy; <b>bold</b> a > b\n\n' +
        '```html\n<script>alert("x")</script>\n```\n\n| a | b |\n|---|---|\n| 1 < 2 | "q" |\n\n' +
        'Line one  \nline two<br>three<br/>four\n\n<div title="a > b">in div</div><img src="x" alt="1 > 0">\n\n' +
        '<p onclick="x()">p</p><style>p{}</style><!-- note --> <a href="https://e.com/?a=1&b=2">link</a>',
    ];
    for (const md of markdowns) {
      const html = markdownToArticle(md, 'fallback').html;
      const figure = sanitizeArticle(`<figure><img src="${OWN}" alt="a &quot;b&quot; <c>"></figure>`);
      for (const h of [html, figure + html]) expect(sanitizedHtmlToText(h)).toBe(htmlToText(h));
    }
  });
});
