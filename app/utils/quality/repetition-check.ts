import { cjkCharacters, countsInCharacters, normalised, sentences, words, type ArticleParts } from './article';
import { round, type QualityCheck } from './check';
import { stockPhrasesFor } from './stock-phrases';

// Repetition and filler: sentences and paragraphs that say the same thing twice (compared after
// folding case and punctuation; only ones long enough to be more than a stock line), and the
// density of the language's stock phrases per 1,000 words (per 1,000 characters in Chinese and
// Japanese). A repeated paragraph fails at once (a model stuck in a loop); repeated sentences warn
// from REPEAT_WARN of the sentences and fail from REPEAT_FAIL; stock phrases warn from
// FILLER_WARN per thousand (a careful writer uses at most one or two) and fail from FILLER_FAIL.

export const REPEAT_WARN = 0.02;
export const REPEAT_FAIL = 0.1;
export const FILLER_WARN = 3;
export const FILLER_FAIL = 8;
const MIN_SENTENCE_TOKENS = 6;

function repeatedShare(items: string[]): { repeated: number; total: number } {
  const seen = new Set<string>();
  let repeated = 0;
  let total = 0;
  for (const item of items) {
    const key = normalised(item);
    if (key.split(' ').length < MIN_SENTENCE_TOKENS) continue;
    total++;
    if (seen.has(key)) repeated++;
    else seen.add(key);
  }
  return { repeated, total };
}

function occurrences(haystack: string, needle: string, wordBounded: boolean): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    if (!wordBounded || ((!before || !/[\p{L}\p{N}]/u.test(before)) && (!after || !/[\p{L}\p{N}]/u.test(after)))) n++;
  }
  return n;
}

export function repetitionCheck(parts: ArticleParts, language: string): QualityCheck {
  const sentenceRepeats = repeatedShare(sentences(parts.text));
  const paragraphRepeats = repeatedShare(parts.paragraphs.map((p) => p.text));
  const phrases = stockPhrasesFor(language);
  const inCharacters = countsInCharacters(language);
  const size = inCharacters ? cjkCharacters(parts.text) : words(parts.text).length;
  let fillerPerThousand: number | null = null;
  if (phrases && size > 0) {
    const lower = parts.text.toLowerCase();
    const hits = phrases.reduce((n, p) => n + occurrences(lower, p, !inCharacters), 0);
    fillerPerThousand = round((hits * 1000) / size, 1);
  }
  const share = sentenceRepeats.total > 0 ? sentenceRepeats.repeated / sentenceRepeats.total : 0;
  const fails = paragraphRepeats.repeated > 0 || share >= REPEAT_FAIL || (fillerPerThousand ?? 0) >= FILLER_FAIL;
  const warns = share >= REPEAT_WARN || (fillerPerThousand ?? 0) >= FILLER_WARN;
  return {
    id: 'repetition',
    status: fails ? 'fail' : warns ? 'warn' : 'pass',
    params: {
      repeatedSentences: sentenceRepeats.repeated,
      repeatedParagraphs: paragraphRepeats.repeated,
      repeatedShare: round(share, 3),
      fillerPerThousand,
      fillerUnit: inCharacters ? 'characters' : 'words',
    },
  };
}
