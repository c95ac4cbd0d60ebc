import { data } from 'franc/data.js';
import { expressions } from 'franc/expressions.js';

// franc's answer for a fixed list of candidate languages, computed the other way round. franc
// walks every candidate's profile for every trigram of the text (two dictionary lookups each, ~55
// candidates for Latin script): the largest part of a generated post's quality checks. Here each
// trigram is looked up once in an index of the candidates that have it, and the distances are
// summed from there. Same profiles, same script rules, same integer distances and the same tie
// order, so the same answer (tests/unit/trigram-detector.test.ts holds it equal to franc itself).

/** franc's rules: the longest text it reads, the distance of a trigram a profile lacks. */
const MAX_LENGTH = 2048;
const MISSING = 300;
const UNDETERMINED = 'und';

type ScriptIndex = {
  /** The candidates with a profile in this script, in franc's order (its tie order). */
  languages: string[];
  /** trigram → [candidate index, rank in its profile, …] for the candidates whose profile has it. */
  ranks: Map<string, number[]>;
};

function scriptIndex(profiles: Record<string, string>, allowed: (code: string) => boolean): ScriptIndex {
  const languages = Object.keys(profiles).filter(allowed);
  const ranks = new Map<string, number[]>();
  languages.forEach((code, l) => {
    const trigrams = profiles[code]!.split('|');
    const seen = new Set<string>();
    // A trigram listed twice keeps its first (best) rank, as franc's dictionaries do.
    trigrams.forEach((trigram, rank) => {
      if (seen.has(trigram)) return;
      seen.add(trigram);
      const list = ranks.get(trigram);
      if (list) list.push(l, rank);
      else ranks.set(trigram, [l, rank]);
    });
  });
  return { languages, ranks };
}

/** How often each trigram occurs, after franc's cleaning (ASCII punctuation and digits out, blanks folded, lower case). */
function trigramCounts(value: string): Map<string, number> {
  const cleaned = ` ${value
    .replace(/[\u0021-\u0040]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()} `;
  const counts = new Map<string, number>();
  for (let i = 0; i + 3 <= cleaned.length; i++) {
    const trigram = cleaned.slice(i, i + 3);
    counts.set(trigram, (counts.get(trigram) ?? 0) + 1);
  }
  return counts;
}

/** The script whose characters make up the largest share of the text (the first of equals), and that share. */
function topScript(value: string): [string, number] {
  let top = '';
  let share = -1;
  for (const [script, expression] of Object.entries(expressions)) {
    const s = (value.match(expression)?.length ?? 0) / value.length || 0;
    if (s > share) [top, share] = [script, s];
  }
  return [top, share];
}

/**
 * A detector answering what `franc(text, { only, minLength })` answers: an ISO 639-3 code, or
 * 'und' when it cannot tell. `only` empty: every language franc knows.
 */
export function trigramDetector(only: readonly string[], minLength: number): (text: string) => string {
  const allowedSet = new Set(only);
  const allowed = (code: string) => allowedSet.size === 0 || allowedSet.has(code);
  const indexes = new Map<string, ScriptIndex>();
  const indexOf = (script: string) => {
    let index = indexes.get(script);
    if (!index) indexes.set(script, (index = scriptIndex(data[script]!, allowed)));
    return index;
  };

  return (text: string) => {
    if (!text || text.length < minLength) return UNDETERMINED;
    const value = text.slice(0, MAX_LENGTH);
    const [script, share] = topScript(value);
    // A script of one language is that language (when it may be answered at all).
    if (!(script in data)) return share === 0 || !allowed(script) ? UNDETERMINED : script;
    const { languages, ranks } = indexOf(script);
    if (languages.length === 0) return UNDETERMINED;
    const counts = trigramCounts(value);
    // Every candidate starts as if it had none of the text's trigrams; each one it has takes off
    // the difference between the missing distance and franc's |count − rank − 1|.
    const distances = new Array<number>(languages.length).fill(MISSING * counts.size);
    for (const [trigram, count] of counts) {
      const list = ranks.get(trigram);
      if (!list) continue;
      for (let i = 0; i < list.length; i += 2) distances[list[i]!] += Math.abs(count - list[i + 1]! - 1) - MISSING;
    }
    let best = 0;
    for (let l = 1; l < distances.length; l++) if (distances[l]! < distances[best]!) best = l;
    return languages[best]!;
  };
}
