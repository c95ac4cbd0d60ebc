// The shape every quality check answers in: pass, warn or fail, with the figure it measured and
// what it measured against. Pages and the API translate a check by its id and params.

export type CheckStatus = 'pass' | 'warn' | 'fail';

/** A check that could not be made for this article (no formula for its language, no keyword...). */
export type CheckOutcome = CheckStatus | 'not_measured';

export type CheckId = 'length' | 'sections' | 'keyword' | 'reading_level' | 'language' | 'duplicates' | 'repetition';

export type QualityCheck = {
  id: CheckId;
  status: CheckOutcome;
  /** The measured figures and what they were held against (numbers, codes, short names). */
  params: Record<string, string | number | boolean | string[] | null>;
};

const RANK: Record<CheckOutcome, number> = { not_measured: 0, pass: 0, warn: 1, fail: 2 };

/** The report's own status: the worst of its checks (a check not measured counts as passed). */
export function worstOf(checks: Pick<QualityCheck, 'status'>[]): CheckStatus {
  const worst = Math.max(0, ...checks.map((c) => RANK[c.status]));
  return worst === 2 ? 'fail' : worst === 1 ? 'warn' : 'pass';
}

/** pass at or above `warnBelow`... a figure checked against two bounds, higher is better. */
export function atLeast(value: number, warnBelow: number, failBelow: number): CheckStatus {
  return value < failBelow ? 'fail' : value < warnBelow ? 'warn' : 'pass';
}

/** A figure checked against two bounds, lower is better. */
export function atMost(value: number, warnAbove: number, failAbove: number): CheckStatus {
  return value > failAbove ? 'fail' : value > warnAbove ? 'warn' : 'pass';
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
