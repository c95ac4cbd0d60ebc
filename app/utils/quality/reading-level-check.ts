import { sentences, words } from './article';
import { round, type QualityCheck } from './check';

// Reading level for English: the Flesch-Kincaid grade level (0.39 × words per sentence + 11.8 ×
// syllables per word − 15.59) against the requested level, with the Flesch reading ease (206.835 −
// 1.015 × words per sentence − 84.6 × syllables per word) reported beside it. Syllables are counted
// by the usual vowel-group rule. The formula's grade is noisy by about a grade on real text:
// within 2 grades of the requested one passes, within 4 warns, further fails. Other languages
// have no formula here: "not measured".

/** The grade each requested level stands for (the middle of a range; College from 13 up). */
export const GRADE_OF_LEVEL: Record<string, number> = {
  '5th grade': 5,
  '6th grade': 6,
  '7th grade': 7,
  '8th & 9th grade': 8.5,
  '10th to 12th grade': 11,
  College: 13,
};
export const GRADE_PASS_DISTANCE = 2;
export const GRADE_WARN_DISTANCE = 4;

/** Syllables of one English word: vowel groups, less a silent final e, at least one. */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w.length <= 3) return 1;
  const trimmed = w.replace(/(?:[^laeiouy]es|[^laeiouy]ed|[^laeiouy]e)$/, '').replace(/^y/, '');
  const groups = trimmed.match(/[aeiouy]{1,2}/g)?.length ?? 0;
  return Math.max(1, groups);
}

export function readability(text: string): { grade: number; ease: number } | null {
  const list = sentences(text).filter((s) => /[a-z]/i.test(s));
  let wordCount = 0;
  let syllableCount = 0;
  // Articles repeat their words: each distinct word is counted once.
  const memo = new Map<string, number>();
  for (const w of words(text)) {
    if (!/[a-z]/.test(w)) continue;
    wordCount++;
    let n = memo.get(w);
    if (n === undefined) memo.set(w, (n = syllables(w)));
    syllableCount += n;
  }
  if (wordCount < 30 || list.length === 0) return null;
  const perSentence = wordCount / list.length;
  const perWord = syllableCount / wordCount;
  return { grade: round(0.39 * perSentence + 11.8 * perWord - 15.59, 1), ease: round(206.835 - 1.015 * perSentence - 84.6 * perWord, 1) };
}

export function readingLevelCheck(text: string, settings: { readingLevel: string; language: string }): QualityCheck {
  const target = GRADE_OF_LEVEL[settings.readingLevel] ?? null;
  const measured = settings.language.startsWith('English') ? readability(text) : null;
  if (!measured || target === null) {
    return { id: 'reading_level', status: 'not_measured', params: { requested: settings.readingLevel, grade: null, ease: null } };
  }
  // College has no upper grade: any grade above its floor is on target.
  const distance = settings.readingLevel === 'College' ? Math.max(0, target - measured.grade) : Math.abs(measured.grade - target);
  const status = distance <= GRADE_PASS_DISTANCE ? 'pass' : distance <= GRADE_WARN_DISTANCE ? 'warn' : 'fail';
  return { id: 'reading_level', status, params: { requested: settings.readingLevel, grade: measured.grade, ease: measured.ease, target } };
}
