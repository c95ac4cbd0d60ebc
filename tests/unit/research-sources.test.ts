import { describe, expect, it } from 'vitest';
import { braveResults, pageHeadings, researchBrief, searxngResults, sourcesMarkdown } from '../../app/utils/research-sources';
import { markdownToArticle } from '../../app/services/providers.server';

// The pure half of a plan's research: the search APIs' answers, a page's headings, the prompt's
// brief and the post's Sources list.

describe('research sources', () => {
  it("reads SearXNG's and Brave's answers: the top results, untitled, unparsable and repeated URLs left out", () => {
    const list = [
      { url: 'https://a.example/x', title: ' A <b>title</b> ', content: 'About a.' },
      { url: 'not a url', title: 'Broken' },
      { url: 'https://b.example/', title: '' },
      { url: 'https://a.example/x', title: 'A again' },
      { url: 'https://c.example/', title: 'C', content: 'About c.' },
      { url: 'https://d.example/', title: 'D' },
    ];
    expect(searxngResults({ results: list }, 2)).toEqual([
      { url: 'https://a.example/x', title: 'A title', snippet: 'About a.', headings: [] },
      { url: 'https://c.example/', title: 'C', snippet: 'About c.', headings: [] },
    ]);
    expect(searxngResults({ error: 'x' }, 3)).toBeNull();
    const brave = list.map(({ content, ...r }) => ({ ...r, description: content }));
    expect(braveResults({ type: 'search', web: { results: brave } }, 1)).toEqual([
      { url: 'https://a.example/x', title: 'A title', snippet: 'About a.', headings: [] },
    ]);
    // Brave leaves `web` out when nothing was found; anything else is not its answer.
    expect(braveResults({ type: 'search', query: { original: 'q' } }, 3)).toEqual([]);
    expect(braveResults({ type: 'ErrorResponse' }, 3)).toBeNull();
  });

  it("a page's h1–h3 headings: text only, entities decoded, scripts and comments skipped, each once, at most 15", () => {
    const html = `<h1 id="t">Top &amp; <span>more</span></h1><script>x='<h2>no</h2>'</script><!-- <h2>no</h2> -->
      <h2>Second</h2><H3>Third &#0; &#9999999999;</H3><h4>Fourth</h4><h2>Second</h2><h2>x</h2>`;
    expect(pageHeadings(html)).toEqual(['Top & more', 'Second', expect.stringContaining('Third'), 'x']);
    expect(pageHeadings(Array.from({ length: 30 }, (_, i) => `<h2>H ${i}</h2>`).join(''))).toHaveLength(15);
  });

  it("the plan prompt's brief names each result, its host and headings; the Sources list is links the article keeps", () => {
    const brief = researchBrief([{ url: 'https://a.example/x', title: 'A', snippet: 'About a.', headings: ['One', 'Two'] }]);
    expect(brief).toContain('1. A (a.example)\n   About a.\n   - One\n   - Two');
    expect(researchBrief([])).toBe('');
    const md = sourcesMarkdown(
      [
        { url: 'https://a.example/x?q=a b', title: 'A [draft] *bold*' },
        { url: 'https://b.example/(paren)', title: 'B' },
      ],
      'Sources',
    );
    const { html } = markdownToArticle(`# T\n\n${md}`, 'T');
    expect(html).toContain('<h2>Sources</h2>');
    expect(html).toContain('<a href="https://a.example/x?q=a%20b" rel="noopener noreferrer nofollow">A [draft] *bold*</a>');
    expect(html).toContain('<a href="https://b.example/(paren)" rel="noopener noreferrer nofollow">B</a>');
    expect(sourcesMarkdown([], 'Sources')).toBe('');
  });
});
