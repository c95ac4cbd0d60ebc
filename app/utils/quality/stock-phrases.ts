// Stock phrases that pad machine-written posts, per language (matched in lower case, on word
// boundaries for space-separated languages). Short on purpose: each is a phrase readers and search
// engines read as filler wherever it appears. Languages without a list are not measured.

export const STOCK_PHRASES: Record<string, string[]> = {
  en: [
    'in today’s fast-paced world',
    "in today's fast-paced world",
    'in today’s digital age',
    "in today's digital age",
    'in this day and age',
    'it is important to note that',
    "it's important to note that",
    'it is worth noting that',
    'in conclusion',
    'at the end of the day',
    'when it comes to',
    'unlock the power of',
    'a testament to',
    'delve into',
    'dive into',
    'navigate the complexities',
    'game-changer',
    'look no further',
    'without further ado',
    'the world of',
    'plays a crucial role',
    'a wide range of',
    'whether you are a',
    'needless to say',
    'last but not least',
    'embark on a journey',
  ],
  zh: [
    '在當今',
    '在当今',
    '快節奏',
    '快节奏',
    '值得注意的是',
    '總而言之',
    '总而言之',
    '綜上所述',
    '综上所述',
    '不可否認',
    '不可否认',
    '眾所周知',
    '众所周知',
    '隨著科技的發展',
    '随着科技的发展',
    '扮演著重要的角色',
    '扮演着重要的角色',
    '毋庸置疑',
  ],
};

/** The list for a requested language ('English (UK)' → en, 'Chinese (Traditional)' → zh). */
export function stockPhrasesFor(language: string): string[] | null {
  if (language.startsWith('English')) return STOCK_PHRASES.en!;
  if (language.startsWith('Chinese')) return STOCK_PHRASES.zh!;
  return null;
}
