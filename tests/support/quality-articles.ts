import { seededRandom as mulberry32 } from '../../app/utils/seeded-random';

// Made-up articles for the quality checks: Markdown the OpenAI test server can answer with, built
// from a seeded word list so two seeds give distinct texts on the same topic, and variants that
// fail one check each (short, repeated, off-language, near-copy).

const WORDS = (
  'garden water light plant soil seed leaf root green grow season summer winter spring morning simple ' +
  'careful choose small large early late good better best easy quick slow warm cool fresh clean ' +
  'tool basket fence path stone wood shade sun rain wind weather week month year people family friend ' +
  'home kitchen table window door room house street market price money time plan idea reason answer ' +
  'question problem result change start finish keep help need want know learn teach show tell read ' +
  'write make take give find look use work try call move live feel think bring hold turn leave begin ' +
  'cost value habit routine health energy sleep food meal recipe flavour colour shape size weight ' +
  'daily weekly useful common special local natural strong gentle steady bright quiet busy'
).split(' ');

const FILLER = ['the', 'a', 'and', 'of', 'to', 'in', 'for', 'with', 'your', 'each', 'this', 'that', 'on', 'it', 'is', 'can'];

export function sentence(rand: () => number, length = 12): string {
  const parts: string[] = [];
  for (let i = 0; i < length; i++)
    parts.push(i % 3 === 1 ? FILLER[Math.floor(rand() * FILLER.length)]! : WORDS[Math.floor(rand() * WORDS.length)]!);
  const s = parts.join(' ');
  return s[0]!.toUpperCase() + s.slice(1) + '.';
}

function paragraph(rand: () => number, sentences = 5): string {
  return Array.from({ length: sentences }, () => sentence(rand, 18 + Math.floor(rand() * 8))).join(' ');
}

export type ArticleShape = {
  seed: number;
  /** About this many words of body. */
  words?: number;
  keyword?: string;
  sections?: { intro?: boolean; conclusion?: boolean; faq?: boolean; takeaways?: boolean; lists?: boolean; headings?: boolean };
};

/** A well-formed English article about `topic` (every section, the keyword in its places), in Markdown. */
export function madeUpArticle(topic: string, shape: ArticleShape): string {
  const rand = mulberry32(shape.seed);
  const s = { intro: true, conclusion: true, faq: true, takeaways: true, lists: true, headings: true, ...shape.sections };
  const keyword = shape.keyword ?? topic;
  const target = shape.words ?? 1200;
  const out: string[] = [`# ${keyword}: a practical guide`];
  let count = 0;
  const para = (first = '') => {
    const p = (first ? `${first} ` : '') + paragraph(rand);
    count += p.split(/\s+/).length;
    return p;
  };
  if (s.intro) out.push(para(`This guide to ${keyword} explains what matters.`));
  let section = 0;
  while (count < target - 200) {
    section++;
    if (s.headings)
      out.push(`## ${section === 1 ? `Why ${keyword} matters` : `Part ${section}: ${WORDS[Math.floor(rand() * WORDS.length)]}`}`);
    out.push(para(), para());
    if (s.lists && section === 2) out.push(['- first point to keep', '- second point to keep', '- third point to keep'].join('\n'));
  }
  if (s.takeaways) out.push('## Key takeaways', para());
  if (s.faq) out.push('## FAQ', '### Is it hard to start?', para(), '### How long does it take?', para());
  if (s.conclusion) out.push('## Conclusion', para());
  return out.join('\n\n');
}

export function seoBlock(keyword: string): string {
  const slug = keyword
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `\n---SEO---\nMeta description: All about ${keyword}: why it matters and how to begin.\nSlug: ${slug}-guide\nFocus keyword: ${keyword}\n`;
}

/** The article with one word in `every` replaced: a near-copy. */
export function nearCopy(markdown: string, every: number, seed = 99): string {
  const rand = mulberry32(seed);
  let i = 0;
  return markdown.replace(/\b[a-z]{3,}\b/g, (w) => (++i % every === 0 ? WORDS[Math.floor(rand() * WORDS.length)]! : w));
}

/** One paragraph said over and over: what a model stuck in a loop writes. */
export function repeatedArticle(topic: string): string {
  const rand = mulberry32(7);
  const p = paragraph(rand);
  return [
    `# ${topic}`,
    `This guide to ${topic} explains what matters. ${p}`,
    ...Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\n${p}`),
  ].join('\n\n');
}

/** A German article (the wrong language for an English run). */
export function germanArticle(topic: string): string {
  const p =
    'Der Garten braucht im Frühling viel Wasser und eine gute Erde, damit die Pflanzen kräftig wachsen können. ' +
    'Wer jeden Morgen eine kleine Runde dreht, sieht schnell, welche Blätter gelb werden und welche Wurzeln mehr Platz brauchen. ' +
    'Die meisten Fehler entstehen, weil man zu viel auf einmal möchte und dabei die einfachen Dinge vergisst.';
  return [`# ${topic}`, p, '## Warum es wichtig ist', p.split(' ').reverse().join(' '), '## Fazit', p].join('\n\n');
}
