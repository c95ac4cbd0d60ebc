import { describe, expect, it } from 'vitest';
import { markdownToArticle } from '~/services/providers.server';
import { articleParts } from '~/utils/quality/article';
import { lengthCheck } from '~/utils/quality/length-check';
import { sectionsCheck } from '~/utils/quality/sections-check';
import { keywordCheck } from '~/utils/quality/keyword-check';
import { readingLevelCheck, readability } from '~/utils/quality/reading-level-check';
import { languageCheck } from '~/utils/quality/language-check';
import { repetitionCheck } from '~/utils/quality/repetition-check';
import { containment, duplicatesCheck, shingleHashes, DUPLICATE_FAIL, DUPLICATE_WARN } from '~/utils/quality/shingles';
import { completeReport, contentChecks } from '~/utils/quality/report';
import { germanArticle, madeUpArticle, nearCopy, repeatedArticle } from '../support/quality-articles';

// Each check on articles made to pass it and to fail it.

const html = (md: string) => markdownToArticle(md, 'topic');
const settings = { language: 'English (US)', contentLength: 'Medium', readingLevel: '8th & 9th grade' };
const all = {
  includeIntro: true,
  includeOutro: true,
  includeHeadings: true,
  includeBulletPoints: true,
  includeQA: true,
  includeKeyTakeaways: true,
};

describe('quality checks', () => {
  const good = html(madeUpArticle('green tea', { seed: 1 }));
  const goodParts = articleParts(good.html);

  it('length: words against the requested length; characters for Chinese', () => {
    expect(lengthCheck(goodParts.text, settings)).toMatchObject({ status: 'pass', params: { unit: 'words', target: 1200 } });
    const short = articleParts(
      html(madeUpArticle('green tea', { seed: 1, words: 200, sections: { faq: false, takeaways: false, conclusion: false } })).html,
    );
    expect(lengthCheck(short.text, settings)).toMatchObject({ status: 'fail', params: { unit: 'words' } });
    const chinese = '綠茶'.repeat(700);
    expect(lengthCheck(chinese, { ...settings, language: 'Chinese (Traditional)' })).toMatchObject({
      status: 'pass',
      params: { unit: 'characters', target: 1800, measured: 1400 },
    });
    expect(lengthCheck('綠茶'.repeat(200), { ...settings, language: 'Chinese (Traditional)' }).status).toBe('fail');
    // Japanese is counted in characters too (kanji and kana alike).
    expect(lengthCheck('緑茶をのむ'.repeat(300), { ...settings, language: 'Japanese' })).toMatchObject({
      status: 'pass',
      params: { unit: 'characters', target: 1800, measured: 1500 },
    });
    expect(lengthCheck('緑茶をのむ'.repeat(100), { ...settings, language: 'Japanese' })).toMatchObject({
      status: 'fail',
      params: { unit: 'characters', measured: 500 },
    });
  });

  it('sections: requested ones missing fail, unwanted ones present warn', () => {
    expect(sectionsCheck(goodParts, all)).toMatchObject({ status: 'pass', params: { missing: [], unwanted: [] } });
    const bare = articleParts(
      html(madeUpArticle('green tea', { seed: 2, sections: { faq: false, conclusion: false, takeaways: false } })).html,
    );
    expect(sectionsCheck(bare, all)).toMatchObject({ status: 'fail', params: { missing: ['conclusion', 'faq', 'keyTakeaways'] } });
    expect(sectionsCheck(goodParts, { ...all, includeQA: false })).toMatchObject({ status: 'warn', params: { unwanted: ['faq'] } });
  });

  it('keyword: title, first paragraph, a subheading, meta description and slug', () => {
    const post = { title: good.title, parts: goodParts, metaDescription: 'All about green tea: how to begin.', slug: 'green-tea-guide' };
    expect(keywordCheck('Green tea', post)).toMatchObject({ status: 'pass', params: { missing: [] } });
    expect(keywordCheck('oolong', post)).toMatchObject({ status: 'fail' });
    expect(keywordCheck('green tea', { ...post, slug: 'tea', metaDescription: '' })).toMatchObject({
      status: 'warn',
      params: { missing: ['metaDescription', 'slug'] },
    });
    expect(keywordCheck(null, post).status).toBe('not_measured');
  });

  it('reading level: Flesch-Kincaid grade for English, not measured otherwise', () => {
    const plain = readingLevelCheck(goodParts.text, settings);
    expect(plain.status, JSON.stringify(plain.params)).toBe('pass');
    expect(plain.params.grade).toBeGreaterThan(5);
    const hard =
      'Notwithstanding institutional considerations, organisational responsibilities necessitate comprehensive administrative documentation. '.repeat(
        12,
      );
    expect(readability(hard)!.grade).toBeGreaterThan(15);
    expect(readingLevelCheck(hard, settings).status).toBe('fail');
    expect(readingLevelCheck(hard, { ...settings, readingLevel: 'College' }).status).toBe('pass');
    expect(readingLevelCheck(goodParts.text, { ...settings, language: 'German' }).status).toBe('not_measured');
  });

  it('language: the detected language against the requested one', () => {
    expect(languageCheck(goodParts.text, 'English (UK)')).toMatchObject({ status: 'pass', params: { detected: 'eng' } });
    const german = articleParts(html(germanArticle('Gartenpflege')).html).text;
    expect(languageCheck(german, 'English (US)')).toMatchObject({ status: 'fail', params: { detected: 'deu' } });
    expect(languageCheck(german, 'German').status).toBe('pass');
    expect(languageCheck(goodParts.text, 'Icelandic').status).toBe('not_measured');
    expect(
      languageCheck('綠茶的好處很多，我們每天都應該喝一點。綠茶含有抗氧化物質，對身體很好，也可以幫助消化。', 'Chinese (Traditional)')
        .status,
    ).toBe('pass');
  });

  it('repetition: repeated paragraphs fail; stock phrases raise the filler figure', () => {
    expect(repetitionCheck(goodParts, 'English (US)')).toMatchObject({ status: 'pass', params: { repeatedParagraphs: 0 } });
    const loop = articleParts(html(repeatedArticle('green tea')).html);
    expect(repetitionCheck(loop, 'English (US)')).toMatchObject({ status: 'fail' });
    expect((repetitionCheck(loop, 'English (US)').params.repeatedParagraphs as number) > 5).toBe(true);
    const padded = articleParts(
      `<p>${Array.from({ length: 20 }, (_, i) => `In today's fast-paced world, it is important to note that garden number ${i} grows.`).join(' ')}</p>`,
    );
    const filler = repetitionCheck(padded, 'English (US)');
    expect(filler.status).toBe('fail');
    expect(filler.params.fillerPerThousand).toBeGreaterThan(100);
    // Repeated sentences in paragraphs that differ: a few warn, many fail.
    const distinct = (i: number) => `Paragraph ${i} talks about the garden and the green tea leaves in spring number ${i}.`;
    const again = 'Water the plants early in the morning before the sun is high.';
    const withRepeats = (repeats: number) =>
      articleParts(
        Array.from({ length: 40 }, (_, i) => `<p>${distinct(i)} ${i < repeats ? again : `A fresh line ${i} follows here today.`}</p>`).join(
          '',
        ),
      );
    expect(repetitionCheck(withRepeats(3), 'English (US)')).toMatchObject({
      status: 'warn',
      params: { repeatedParagraphs: 0, repeatedSentences: 2 },
    });
    expect(repetitionCheck(withRepeats(20), 'English (US)')).toMatchObject({
      status: 'fail',
      params: { repeatedParagraphs: 0, repeatedSentences: 19 },
    });
    expect(repetitionCheck(withRepeats(0), 'English (US)').status).toBe('pass');
    // The Chinese list, per 1,000 characters: stock openers fail, plain text passes.
    const zhPlain = Array.from({ length: 20 }, (_, i) => `綠茶含有豐富的抗氧化物質，第${i}杯適量飲用對身體有益。`).join('');
    expect(repetitionCheck(articleParts(`<p>${zhPlain}</p>`), 'Chinese (Traditional)')).toMatchObject({
      status: 'pass',
      params: { fillerPerThousand: 0, fillerUnit: 'characters' },
    });
    const zhPadded = Array.from({ length: 20 }, (_, i) => `在當今快節奏的社會，眾所周知，第${i}杯綠茶很好。`).join('');
    expect(repetitionCheck(articleParts(`<p>${zhPadded}</p>`), 'Chinese (Traditional)').status).toBe('fail');
  });

  it('near-duplicates: a near-copy is over the threshold, a distinct article on the same topic is under it', () => {
    const a = madeUpArticle('green tea', { seed: 1 });
    const base = shingleHashes(articleParts(html(a).html).text);
    const distinct = shingleHashes(articleParts(html(madeUpArticle('green tea', { seed: 3 })).html).text);
    const copy10 = shingleHashes(articleParts(html(nearCopy(a, 10)).html).text);
    const copy5 = shingleHashes(articleParts(html(nearCopy(a, 5)).html).text);
    expect(containment(distinct, base)).toBeLessThan(DUPLICATE_WARN);
    expect(containment(copy10, base)).toBeGreaterThanOrEqual(DUPLICATE_FAIL);
    // A word in five reworded sits at the warning line (0.16-0.21 measured): far above distinct articles.
    expect(containment(copy5, base)).toBeGreaterThan(0.15);
    const closest = { source: 'run' as const, id: 'x', title: 'Green tea', similarity: containment(copy10, base) };
    expect(duplicatesCheck(closest, copy10.length)).toMatchObject({ status: 'fail', params: { closest: 'Green tea' } });
    expect(duplicatesCheck(null, copy10.length)).toMatchObject({ status: 'pass', params: { similarity: 0 } });
  });

  it('a report is the worst of its checks', () => {
    const input = { title: good.title, html: good.html, topic: 'green tea', settings: { ...settings, ...all }, keywords: null };
    const seo = { metaDescription: 'All about green tea: how to begin.', slug: 'green-tea-guide', focusKeyword: 'green tea' };
    const report = completeReport(contentChecks({ ...input, seo }), null);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['length', 'pass'],
      ['sections', 'pass'],
      ['keyword', 'pass'],
      ['reading_level', 'pass'],
      ['language', 'pass'],
      ['repetition', 'pass'],
      ['duplicates', 'pass'],
    ]);
    expect(report.status).toBe('pass');
    const short = html(madeUpArticle('green tea', { seed: 1, words: 200, sections: { faq: false, takeaways: false, conclusion: false } }));
    expect(completeReport(contentChecks({ ...input, html: short.html, seo }), null).status).toBe('fail');
  });
});
