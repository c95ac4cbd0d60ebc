import { describe, expect, it } from 'vitest';
import { markdownToArticle } from '~/services/providers.server';
import { articleParts } from '~/utils/quality/article';
import { sectionsCheck } from '~/utils/quality/sections-check';
import { contentChecks } from '~/utils/quality/report';
import { articleMarkdown, fixesOffered, insertContinuation, insertSection, isOffered } from '~/utils/quality/fixes';
import { fixCost, findModel } from '~/catalogue';
import { madeUpArticle } from '../support/quality-articles';

// What a report offers to fix, where a fix's new words go, and what each fix costs.

const html = (md: string) => markdownToArticle(md, 'topic').html;
const heads = (h: string) => [...h.matchAll(/<h2>(.*?)<\/h2>/g)].map((m) => m[1]);
const report = (h: string, settings: Record<string, unknown> = {}) =>
  contentChecks({ title: 't', html: h, topic: 'green tea', settings, seo: null });

describe('one-click fixes', () => {
  it('are offered by what the report finds: expand when short, each missing section, regenerate always', () => {
    const short = html(madeUpArticle('green tea', { seed: 1, words: 250, sections: { faq: false, intro: false } }));
    expect(fixesOffered(report(short))).toEqual([
      { kind: 'expand' },
      { kind: 'add_section', section: 'intro' },
      { kind: 'add_section', section: 'faq' },
      { kind: 'regenerate' },
    ]);
    const good = html(madeUpArticle('green tea', { seed: 1 }));
    expect(fixesOffered(report(good))).toEqual([{ kind: 'regenerate' }]);
    expect(isOffered(report(good), 'expand')).toBe(false);
    expect(isOffered(null, 'regenerate')).toBe(true);
    expect(isOffered(report(short), 'add_section', 'conclusion')).toBe(false);
  });

  it('puts each added section where posts have it, and a continuation before the closing sections', () => {
    const bare = html(madeUpArticle('green tea', { seed: 2, sections: { faq: false, takeaways: false, conclusion: false, intro: false } }));
    const faq = '<h2>FAQ</h2><h3>Is it hard?</h3><p>No.</p>';
    const withConclusion = insertSection(bare, 'conclusion', '<h2>Conclusion</h2><p>The end.</p>');
    const withFaq = insertSection(withConclusion, 'faq', faq);
    const withTakeaways = insertSection(withFaq, 'keyTakeaways', '<h2>Key takeaways</h2><ul><li>One</li></ul>');
    const intro = `<p>${'An opening sentence about green tea and why it matters to everyone. '.repeat(2)}</p>`;
    const full = insertSection(`<figure><img src="/images/x" alt=""></figure>${withTakeaways}`, 'intro', intro);
    expect(heads(full).slice(-3)).toEqual(['Key takeaways', 'FAQ', 'Conclusion']);
    expect(full.indexOf(intro)).toBe(full.indexOf('</figure>') + '</figure>'.length);
    const present = sectionsCheck(articleParts(full), {
      includeIntro: true,
      includeOutro: true,
      includeQA: true,
      includeKeyTakeaways: true,
    });
    expect(present.status).toBe('pass');

    const more = insertContinuation(full, '<h2>Going further</h2><p>More.</p>');
    expect(heads(more).slice(-4)).toEqual(['Going further', 'Key takeaways', 'FAQ', 'Conclusion']);
    expect(heads(insertContinuation(bare, '<h2>Going further</h2>')).at(-1)).toBe('Going further');
  });

  it('sends the post as Markdown: its headings, lists and paragraphs, no markup or images', () => {
    const md = articleMarkdown(
      '<figure><img src="/images/x" alt=""></figure><p>A &amp; B.</p><h2>Why</h2><ul><li>One</li><li>Two</li></ul>',
    );
    expect(md).toBe('A & B.\n\n## Why\n\n- One\n- Two');
  });

  it('costs one post of its model to regenerate or expand, one credit to add a section', () => {
    const dear = findModel('anthropic/claude-3.7-sonnet')!;
    expect([fixCost('regenerate', dear), fixCost('expand', dear), fixCost('add_section', dear)]).toEqual([2, 2, 1]);
  });
});
