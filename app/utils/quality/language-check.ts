import type { QualityCheck } from './check';
import { trigramDetector } from './trigram-detector';

// The article's language against the requested one, by `franc`'s trigram profiles of 187
// languages (maintained), read through trigram-detector.ts, which answers as franc does at a
// fraction of its cost. It reads a sample of LANGUAGE_SAMPLE characters from the body: its
// accuracy is flat past a few hundred characters and its cost grows with the sample (the
// largest part of a report's CPU: tests/bench/quality.ts).
// A match passes, another language fails; text too short or too mixed to tell, or a requested
// language the detector has no profile for, is "not measured".

export const LANGUAGE_SAMPLE = 400;

/**
 * ISO 639-3 codes the detector may answer for each requested language: close kin it cannot tell
 * apart reliably (Malay/Indonesian, the Serbo-Croatian standards, the two Norwegian written forms)
 * count as a match. Null: no profile in the detector.
 */
export const DETECTOR_CODES: Record<string, string[] | null> = {
  'English (US)': ['eng'],
  'English (UK)': ['eng'],
  'English (Australia)': ['eng'],
  'English (Canada)': ['eng'],
  Afrikaans: ['afr', 'nld'],
  Albanian: ['als'],
  Arabic: ['arb'],
  Armenian: ['hye'],
  Azerbaijani: ['azj'],
  Basque: null,
  Belarusian: ['bel'],
  Bengali: ['ben'],
  Bosnian: ['bos', 'hrv', 'srp'],
  Bulgarian: ['bul'],
  Catalan: ['cat'],
  'Chinese (Simplified)': ['cmn'],
  'Chinese (Traditional)': ['cmn'],
  Croatian: ['hrv', 'bos', 'srp'],
  Czech: ['ces'],
  Danish: ['dan', 'nob'],
  Dutch: ['nld'],
  Estonian: ['ekk'],
  Filipino: ['tgl'],
  Finnish: ['fin'],
  French: ['fra'],
  Galician: ['glg', 'por'],
  Georgian: ['kat'],
  German: ['deu'],
  Greek: ['ell'],
  Gujarati: ['guj'],
  Hebrew: ['heb'],
  Hindi: ['hin'],
  Hungarian: ['hun'],
  Icelandic: null,
  Indonesian: ['ind', 'zlm'],
  Irish: null,
  Italian: ['ita'],
  Japanese: ['jpn'],
  Kannada: ['kan'],
  Kazakh: ['kaz'],
  Korean: ['kor'],
  Latvian: ['lvs'],
  Lithuanian: ['lit'],
  Macedonian: ['mkd', 'bul'],
  Malay: ['zlm', 'ind'],
  Marathi: ['mar'],
  Norwegian: ['nob', 'nno', 'dan'],
  Persian: ['pes'],
  Polish: ['pol'],
  Portuguese: ['por', 'glg'],
  Romanian: ['ron'],
  Russian: ['rus'],
  Serbian: ['srp', 'hrv', 'bos'],
  Slovak: ['slk', 'ces'],
  Slovenian: ['slv'],
  Spanish: ['spa'],
  Swedish: ['swe'],
  Thai: ['tha'],
  Vietnamese: ['vie'],
};

// The detector weighs only the languages a run can ask for (and their kin above): a third of the
// cost of all 187 profiles, and a text in any other language still reads as a mismatch.
export const CANDIDATES = [...new Set(Object.values(DETECTOR_CODES).flatMap((codes) => codes ?? []))];

/** Shorter than this, a sample is too little to tell. */
export const MIN_SAMPLE = 40;

const detect = trigramDetector(CANDIDATES, MIN_SAMPLE);

/** The detected ISO 639-3 code of a text, or null when it cannot tell. */
export function detectLanguage(text: string): string | null {
  // From the middle of the start: skips a title-like first line when the body is long enough.
  const from = text.length > LANGUAGE_SAMPLE * 1.5 ? Math.floor(LANGUAGE_SAMPLE / 4) : 0;
  const code = detect(text.slice(from, from + LANGUAGE_SAMPLE));
  return code === 'und' ? null : code;
}

export function languageCheck(text: string, language: string): QualityCheck {
  const codes = DETECTOR_CODES[language] ?? null;
  const detected = codes ? detectLanguage(text) : null;
  if (!codes || !detected) return { id: 'language', status: 'not_measured', params: { requested: language, detected } };
  return { id: 'language', status: codes.includes(detected) ? 'pass' : 'fail', params: { requested: language, detected } };
}
