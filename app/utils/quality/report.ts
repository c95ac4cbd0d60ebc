import { structureFlags, textDefaults, type StructureFlag } from '~/catalogue';
import { articleParts } from './article';
import { worstOf, type CheckStatus, type QualityCheck } from './check';
import { keywordCheck, keywordOf } from './keyword-check';
import { languageCheck } from './language-check';
import { lengthCheck } from './length-check';
import { readingLevelCheck } from './reading-level-check';
import { repetitionCheck } from './repetition-check';
import { sectionsCheck } from './sections-check';
import { duplicatesCheck, shingleHashes, type ClosestPost } from './shingles';

// A text result's quality report: every check of this folder on the post and the settings it was
// generated with. The content checks are pure CPU (a few milliseconds at 1,500 words); the
// near-duplicate check needs the other posts, so the caller looks up the closest one by the
// post's shingles and completes the report with it.

export type QualityReport = { status: CheckStatus; checks: QualityCheck[]; checkedAt: string };

export type QualityInput = {
  title: string;
  html: string;
  topic: string;
  /** The run's stored settings (language, content length, reading level, structure flags). */
  settings: Record<string, unknown>;
  seo: { metaDescription: string; slug: string; focusKeyword: string } | null;
  /** The row's CSV keywords, if any. */
  keywords?: string | null;
};

/** What the checks read of a run's settings, each missing one at its default. */
export function checkedSettings(s: Record<string, unknown>) {
  const str = (k: 'language' | 'contentLength' | 'readingLevel') => (typeof s[k] === 'string' ? (s[k] as string) : textDefaults[k]);
  const flags = Object.fromEntries(structureFlags.map((f) => [f, typeof s[f] === 'boolean' ? s[f] : textDefaults[f]])) as Record<
    StructureFlag,
    boolean
  >;
  return { language: str('language'), contentLength: str('contentLength'), readingLevel: str('readingLevel'), ...flags };
}

/** The content checks and the post's shingles (for the near-duplicate lookup). */
export function contentChecks(input: QualityInput): { checks: QualityCheck[]; shingles: number[] } {
  const settings = checkedSettings(input.settings);
  const parts = articleParts(input.html);
  const keyword = keywordOf({ focusKeyword: input.seo?.focusKeyword, keywords: input.keywords, topic: input.topic });
  const checks = [
    lengthCheck(parts.text, settings),
    sectionsCheck(parts, settings),
    keywordCheck(keyword, {
      title: input.title,
      parts,
      metaDescription: input.seo?.metaDescription ?? '',
      slug: input.seo?.slug ?? '',
    }),
    readingLevelCheck(parts.text, settings),
    languageCheck(parts.text, settings.language),
    repetitionCheck(parts, settings.language),
  ];
  return { checks, shingles: shingleHashes(parts.text) };
}

/** The whole report: the content checks and the near-duplicate check against the closest post found. */
export function completeReport(
  content: { checks: QualityCheck[]; shingles: number[] },
  closest: ClosestPost | null,
  now = new Date(),
): QualityReport {
  const checks = [...content.checks, duplicatesCheck(closest, content.shingles.length)];
  return { status: worstOf(checks), checks, checkedAt: now.toISOString() };
}
