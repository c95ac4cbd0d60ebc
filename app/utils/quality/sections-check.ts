import type { StructureFlag } from '~/catalogue';
import { cjkCharacters, words, type ArticleParts } from './article';
import type { QualityCheck } from './check';

// The sections the generation settings asked for (or asked to leave out), found in the article's
// structure: an introduction is text before the first heading; headings are at least two h2/h3;
// lists are any <ul>/<ol>; a conclusion, an FAQ and key takeaways are found by their heading, in
// the languages whose words are listed below (others: FAQ by two question headings, the rest by
// the last heading only where English words fit). A requested section missing fails; one present
// that was asked to be left out warns.

export type Section = 'intro' | 'conclusion' | 'headings' | 'lists' | 'faq' | 'keyTakeaways';

export const SECTION_OF_FLAG: Record<StructureFlag, Section> = {
  includeIntro: 'intro',
  includeOutro: 'conclusion',
  includeHeadings: 'headings',
  includeBulletPoints: 'lists',
  includeQA: 'faq',
  includeKeyTakeaways: 'keyTakeaways',
};

// Heading words of a conclusion, an FAQ and key takeaways, in the languages users most often pick
// (a fix that adds one of them finds where it goes by the same words).
export const CONCLUSION =
  /conclusion|final thoughts|wrapping up|in summary|summary|the bottom line|conclusi[oó]n|fazit|schlussfolgerung|conclus[aã]o|conclusione|結論|总结|總結|结论|結語|まとめ|결론/i;
export const FAQ =
  /\bfaqs?\b|frequently asked|common questions|preguntas frecuentes|questions fréquentes|häufig gestellte|perguntas frequentes|domande frequenti|常見問題|常见问题|問與答|问答|よくある質問|자주 묻는 질문/i;
export const TAKEAWAYS =
  /key takeaways?|takeaways|key points|main points|puntos clave|points clés|wichtigste punkte|重點|要點|要点|重点|關鍵|关键|ポイント|핵심/i;

function hasIntro(parts: ArticleParts): boolean {
  const before = parts.paragraphs.filter((p) => p.after === -1).map((p) => p.text);
  const text = before.join(' ');
  // A sentence or two, not a stray caption.
  return words(text).length >= 15 || cjkCharacters(text) >= 30;
}

/** Which of the six sections the article has. */
export function sectionsPresent(parts: ArticleParts): Record<Section, boolean> {
  const heads = parts.headings.map((h) => h.text);
  const questions = heads.filter((h) => /[?？]\s*$/.test(h)).length;
  return {
    intro: hasIntro(parts),
    conclusion: heads.some((h) => CONCLUSION.test(h)),
    headings: parts.headings.filter((h) => h.level <= 3).length >= 2,
    lists: parts.lists > 0,
    faq: heads.some((h) => FAQ.test(h)) || questions >= 2,
    keyTakeaways: heads.some((h) => TAKEAWAYS.test(h)),
  };
}

export function sectionsCheck(parts: ArticleParts, settings: Partial<Record<StructureFlag, boolean>>): QualityCheck {
  const present = sectionsPresent(parts);
  const missing: Section[] = [];
  const unwanted: Section[] = [];
  for (const [flag, section] of Object.entries(SECTION_OF_FLAG) as [StructureFlag, Section][]) {
    if (settings[flag] === true && !present[section]) missing.push(section);
    if (settings[flag] === false && present[section]) unwanted.push(section);
  }
  const status = missing.length > 0 ? 'fail' : unwanted.length > 0 ? 'warn' : 'pass';
  return { id: 'sections', status, params: { missing, unwanted } };
}
