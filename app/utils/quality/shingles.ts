import { tokens } from './article';
import { round, type QualityCheck } from './check';

// Near-duplicates by word shingles: every run of SHINGLE_SIZE tokens (words; Han and kana
// characters one by one) hashed to 32 bits (FNV-1a), and only the hashes that are 0 modulo
// SHINGLE_SAMPLE kept. Sampling by the hash's value keeps the same shingles of every text, so two
// texts' kept sets overlap exactly as much as their whole sets do, on average, and an index of a
// site's posts stays a sixteenth of the full size (~90 rows for a 1,500-word post): that is what
// lets a post be checked against ten thousand posts with one indexed query instead of comparing
// it with each.
//
// The figure is containment: the share of this post's shingles found in the other post. Rewording
// one word in ten keeps about 0.9^5 ≈ 59 % of 5-word shingles; distinct articles on the same topic
// share a few percent (stock phrases). Measured on made-up articles (tests/bench/quality.ts):
// distinct ones at most ~0.08, near-copies with a word in five changed ~0.3, in ten ~0.6. So at
// least DUPLICATE_FAIL (0.5) fails, at least DUPLICATE_WARN (0.2) warns.

export const SHINGLE_SIZE = 5;
export const SHINGLE_SAMPLE = 16;
export const DUPLICATE_WARN = 0.2;
export const DUPLICATE_FAIL = 0.5;
/** Fewer kept shingles than this say nothing reliable (a text of a few dozen words). */
export const MIN_SHINGLES = 4;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** The kept shingle hashes of a text (signed 32-bit integers, each once). */
export function shingleHashes(text: string): number[] {
  const list = tokens(text);
  const kept = new Set<number>();
  for (let i = 0; i + SHINGLE_SIZE <= list.length; i++) {
    const h = fnv1a(list.slice(i, i + SHINGLE_SIZE).join(' '));
    if ((h >>> 0) % SHINGLE_SAMPLE === 0) kept.add(h);
  }
  return [...kept];
}

/** Share of `a`'s shingles that are in `b` (0 when `a` has too few to tell). */
export function containment(a: readonly number[], b: readonly number[]): number {
  if (a.length < MIN_SHINGLES) return 0;
  const other = new Set(b);
  let shared = 0;
  for (const h of a) if (other.has(h)) shared++;
  return shared / a.length;
}

/** The closest other post: where it is (this run, or a site's post), its title and the figure. */
export type ClosestPost = { source: 'run' | 'site'; id: string; title: string; url?: string | null; similarity: number };

export function duplicatesCheck(closest: ClosestPost | null, shingles: number): QualityCheck {
  if (shingles < MIN_SHINGLES) return { id: 'duplicates', status: 'not_measured', params: { similarity: null, closest: null } };
  const similarity = round(closest?.similarity ?? 0);
  const status = similarity >= DUPLICATE_FAIL ? 'fail' : similarity >= DUPLICATE_WARN ? 'warn' : 'pass';
  return {
    id: 'duplicates',
    status,
    params: {
      similarity,
      closest: closest ? closest.title : null,
      closestSource: closest?.source ?? null,
      closestId: closest?.id ?? null,
      closestUrl: closest?.url ?? null,
    },
  };
}
