import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { franc } from 'franc';
import { markdownToArticle } from '~/services/providers.server';
import { articleParts } from '~/utils/quality/article';
import { CANDIDATES, LANGUAGE_SAMPLE, MIN_SAMPLE, detectLanguage } from '~/utils/quality/language-check';
import { trigramDetector } from '~/utils/quality/trigram-detector';
import { germanArticle, madeUpArticle, repeatedArticle } from '../support/quality-articles';

// The quality check's language detector must answer exactly what franc answers on the same text
// and candidates: it replaces franc's own loop, not its judgement.

const detectors = {
  candidates: { only: CANDIDATES, detect: trigramDetector(CANDIDATES, MIN_SAMPLE) },
  all: { only: [] as string[], detect: trigramDetector([], MIN_SAMPLE) },
  few: { only: ['eng', 'deu', 'rus', 'cmn'], detect: trigramDetector(['eng', 'deu', 'rus', 'cmn'], 10) },
};
const minLength = { candidates: MIN_SAMPLE, all: MIN_SAMPLE, few: 10 };

function expectSameAsFranc(text: string) {
  for (const [name, { only, detect }] of Object.entries(detectors))
    expect(detect(text), `${name}: ${JSON.stringify(text.slice(0, 80))}`).toBe(
      franc(text, { only, minLength: minLength[name as keyof typeof minLength] }),
    );
}

const postText = (md: string) => articleParts(markdownToArticle(md, 'topic').html).text;

const texts = [
  ...[1, 2, 3, 4, 5].map((seed) => postText(madeUpArticle(`topic ${seed}`, { seed }))),
  postText(germanArticle('Grüner Tee')),
  postText(repeatedArticle('green tea')),
  'Le thé vert est une boisson très appréciée dans le monde entier pour ses nombreux bienfaits sur la santé.',
  'El té verde es una bebida muy apreciada en todo el mundo por sus numerosos beneficios para la salud.',
  'O chá verde é uma bebida muito apreciada em todo o mundo pelos seus inúmeros benefícios para a saúde.',
  'Il tè verde è una bevanda molto apprezzata in tutto il mondo per i suoi numerosi benefici per la salute.',
  'Зелёный чай — напиток, который ценят во всём мире за его многочисленные полезные свойства для здоровья.',
  'Зелений чай — напій, який цінують у всьому світі за його численні корисні властивості для здоров’я.',
  'الشاي الأخضر مشروب يحظى بتقدير كبير في جميع أنحاء العالم لفوائده الصحية العديدة والمتنوعة.',
  'हरी चाय एक ऐसा पेय है जिसे इसके कई स्वास्थ्य लाभों के लिए पूरी दुनिया में पसंद किया जाता है।',
  '綠茶的好處很多，我們每天都應該喝一點。綠茶含有抗氧化物質，對身體很好，也可以幫助消化。',
  '緑茶は健康に良い飲み物として、世界中で広く愛されています。毎日少しずつ飲むのがおすすめです。',
  '녹차는 건강에 좋은 음료로 전 세계적으로 널리 사랑받고 있습니다. 매일 조금씩 마시는 것이 좋습니다.',
  'Το πράσινο τσάι είναι ένα ρόφημα που εκτιμάται σε όλο τον κόσμο για τα πολλά οφέλη του στην υγεία.',
  'ชาเขียวเป็นเครื่องดื่มที่ได้รับความนิยมทั่วโลกเพราะมีประโยชน์ต่อสุขภาพมากมายหลายประการ',
  'תה ירוק הוא משקה שזוכה להערכה רבה בכל העולם בזכות יתרונותיו הבריאותיים הרבים והמגוונים.',
  'Zielona herbata to napój ceniony na całym świecie ze względu na liczne korzyści dla zdrowia.',
  'Trà xanh là thức uống được yêu thích trên toàn thế giới nhờ nhiều lợi ích cho sức khỏe.',
  '12345 67890 !!! ??? ... 2024-01-01 12:00 #### ---- **** 98765 43210 ((()))',
  'Green tea 綠茶 зелёный чай té verde الشاي الأخضر हरी चाय 緑茶 녹차 πράσινο τσάι',
];

describe('trigram detector', () => {
  it('answers as franc on generated posts, their samples and texts in many scripts', () => {
    for (const text of texts) {
      expectSameAsFranc(text);
      // The samples detectLanguage takes, and shorter ones around the minimum.
      expectSameAsFranc(text.slice(LANGUAGE_SAMPLE / 4, LANGUAGE_SAMPLE / 4 + LANGUAGE_SAMPLE));
      for (const n of [9, 10, 39, 40, 41, 60]) expectSameAsFranc(text.slice(0, n));
    }
    // What the quality check reports: English posts read as English, the German one as German.
    expect(detectLanguage(texts[0]!)).toBe('eng');
    expect(detectLanguage(texts[5]!)).toBe('deu');
  });

  it('answers as franc on any slice of the fixtures', () => {
    const corpus = texts.join('\n');
    fc.assert(
      fc.property(fc.nat(corpus.length), fc.integer({ min: 0, max: 600 }), (from, length) => {
        expectSameAsFranc(corpus.slice(from, from + length));
      }),
      { numRuns: 300 },
    );
  });

  it('answers as franc on arbitrary text: mixed scripts, punctuation, digits, blanks', () => {
    const pieces = fc.constantFrom(
      ...'abcdefghijklmnopqrstuvwxyzäöüßéèñçøåłšžıəğ'.split(''),
      ...'абвгдежзийклмнопрстуфхцчшщыэюяіїєґ'.split(''),
      ...'αβγδεζηθικλμνξοπρστυφχψω'.split(''),
      ...'的一是不了人我在有他这中大来上国個們'.split(''),
      ...'あいうえおかきくけこアイウエオ한국어녹차'.split(''),
      ...'ابتثجحخدذرزسشصضطظعغفقكلمنهوي'.split(''),
      ...'अआइईउऊएऐओऔकखगघचछजझ'.split(''),
      ' ',
      '  ',
      '\n',
      '\t',
      '\u00a0',
      ...'.,;:!?\'"()-0123456789@#&*/'.split(''),
      'the ',
      'und ',
      ' de la ',
      ' и ',
      'tion',
    );
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 0, maxLength: 300 }), (parts) => expectSameAsFranc(parts.join(''))),
      { numRuns: 400 },
    );
  });
});
