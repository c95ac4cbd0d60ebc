import type { QualityCheck } from './check';

// A quality check as one sentence with its figure, in the reader's language: the results row's
// report and the publish page's "held" notice say it the same way. `ns` is the catalogue prefix
// when the caller's translator reads another namespace (e.g. `workspace:`).

type Translate = (key: string, options?: Record<string, unknown>) => string;

const list = (t: Translate, ns: string, group: string, items: unknown) =>
  (Array.isArray(items) ? items : []).map((i) => t(`${ns}quality.${group}.${String(i)}`)).join(', ');

/** One check as a sentence with its figure, in the reader's language. */
export function checkLine(t: Translate, check: QualityCheck, ns = ''): string {
  const p = check.params;
  const k = (key: string) => `${ns}quality.${key}`;
  switch (check.id) {
    case 'length':
      return t(k(p.unit === 'characters' ? 'checks.lengthCharacters' : 'checks.length'), {
        measured: p.measured,
        target: p.target,
      });
    case 'sections':
      if (Array.isArray(p.missing) && p.missing.length) return t(k('checks.sectionsMissing'), { list: list(t, ns, 'sections', p.missing) });
      if (Array.isArray(p.unwanted) && p.unwanted.length)
        return t(k('checks.sectionsUnwanted'), { list: list(t, ns, 'sections', p.unwanted) });
      return t(k('checks.sections'));
    case 'keyword':
      if (!p.keyword) return t(k('checks.keywordNone'));
      if (Array.isArray(p.missing) && p.missing.length)
        return t(k('checks.keywordMissing'), { keyword: p.keyword, list: list(t, ns, 'places', p.missing) });
      return t(k('checks.keyword'), { keyword: p.keyword, found: list(t, ns, 'places', p.found) });
    case 'reading_level':
      return p.grade === null ? t(k('checks.readingLevelNone')) : t(k('checks.readingLevel'), { grade: p.grade, requested: p.requested });
    case 'language':
      return check.status === 'not_measured'
        ? t(k('checks.languageNone'))
        : t(k('checks.language'), { detected: p.detected, requested: p.requested });
    case 'duplicates': {
      if (p.similarity === null) return t(k('checks.duplicatesNone'));
      const percent = Math.round(Number(p.similarity) * 100);
      return p.closest && percent > 0
        ? t(k('checks.duplicatesClosest'), { closest: p.closest, percent })
        : t(k('checks.duplicates'), { percent });
    }
    case 'repetition':
      return p.fillerPerThousand === null
        ? t(k('checks.repetition'), { sentences: p.repeatedSentences, paragraphs: p.repeatedParagraphs })
        : t(k('checks.repetitionFiller'), {
            sentences: p.repeatedSentences,
            paragraphs: p.repeatedParagraphs,
            filler: p.fillerPerThousand,
            unit: t(k(`units.${String(p.fillerUnit)}`)),
          });
  }
}
