import { DomUtils, parseDocument } from 'htmlparser2';

// Internal links woven into an article's own sentences: each link goes on a phrase that
// is already in a paragraph, never appended as a list. The HTML is parsed with htmlparser2 (the
// parser sanitize-html uses) only to find where the eligible text lies; the links are then spliced
// into the original string, so every byte outside the anchors stays as the sanitizer wrote it.

export type LinkTarget = {
  /** Absolute http(s) URL: the sanitizer strips any other link. */
  url: string;
  title: string;
  /** Phrases to look for, best first (title, tags, categories...). */
  phrases: string[];
};

export type PlacedLink = { anchor: string; url: string; title: string; sentence: string };

export type WeaveOptions = {
  maxLinks?: number;
  selfUrl?: string | null;
  /** The links' rel; null: none (a post's links to its own site, sent at publish time). Default LINK_REL. */
  rel?: string | null;
};

/** Text inside these is never linked (nor is a paragraph inside them). */
const CLOSED = new Set(['a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'figcaption', 'pre', 'code', 'blockquote', 'table']);
/** The rel the sanitizer puts on every link: written the same so the output is its fixed point. */
const LINK_REL = 'noopener noreferrer nofollow';
const ABSOLUTE = /^https?:\/\/[^/\s]/i;
const TERMINATOR = /[.!?。！？]/;
const CJK_TERMINATOR = /[。！？]/;
const WORD = /[\p{L}\p{N}_]/u;
const HAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

type AnyNode = ReturnType<typeof parseDocument>['children'][number];
const { isTag, isText } = DomUtils;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

type Char = { ch: string; node: number; rawStart: number; rawEnd: number };
type Piece = { eligible: boolean };
type Paragraph = { chars: Char[]; text: string; sentences: [number, number][] };

/** Decodes a text node's raw source char by char, keeping where each char came from. */
function decodeRaw(raw: string, base: number, node: number, out: Char[]) {
  let i = 0;
  while (i < raw.length) {
    if (raw[i] === '&') {
      const m = /^&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/i.exec(raw.slice(i, i + 12));
      if (m) {
        const name = m[1]!;
        let ch: string | undefined;
        if (name[0] === '#') {
          const cp = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
          ch = cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
        } else ch = NAMED[name.toLowerCase()];
        if (ch !== undefined) {
          out.push({ ch, node, rawStart: base + i, rawEnd: base + i + m[0].length });
          i += m[0].length;
          continue;
        }
      }
    }
    const cp = raw.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    out.push({ ch: raw.slice(i, i + len), node, rawStart: base + i, rawEnd: base + i + len });
    i += len;
  }
}

/** Sentence ranges over a paragraph's text: a terminator ends one when a space or the end follows. */
export function sentenceRanges(chars: string[]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (!TERMINATOR.test(c)) continue;
    let j = i + 1;
    while (j < chars.length && /["'”’)\]」』.!?。！？]/.test(chars[j]!)) j++;
    if (CJK_TERMINATOR.test(c) || j >= chars.length || /\s/.test(chars[j]!)) {
      out.push([start, j]);
      start = j;
      i = j - 1;
    }
  }
  if (start < chars.length) out.push([start, chars.length]);
  return out.filter(([s, e]) => chars.slice(s, e).join('').trim() !== '');
}

function collectParagraphs(html: string): { paragraphs: Paragraph[]; pieces: Piece[] } {
  const doc = parseDocument(html, { withStartIndices: true, withEndIndices: true, decodeEntities: false });
  const paragraphs: Paragraph[] = [];
  const pieces: Piece[] = [];

  const walkParagraph = (node: AnyNode, closed: boolean, chars: Char[]) => {
    if (isText(node)) {
      const t = node;
      const index = pieces.length;
      pieces.push({ eligible: !closed });
      decodeRaw(html.slice(t.startIndex!, t.endIndex! + 1), t.startIndex!, index, chars);
    } else if (isTag(node)) {
      const el = node;
      if (el.name === 'br') chars.push({ ch: ' ', node: -1, rawStart: -1, rawEnd: -1 });
      for (const child of el.children) walkParagraph(child, closed || CLOSED.has(el.name), chars);
    }
  };
  const walk = (node: AnyNode, closed: boolean) => {
    if (!isTag(node)) return;
    const el = node;
    if (el.name === 'p') {
      const chars: Char[] = [];
      for (const child of el.children) walkParagraph(child, closed, chars);
      const list = chars.map((c) => c.ch);
      // A paragraph inside a closed element still counts for "the first sentence" but takes no link.
      paragraphs.push({ chars, text: list.join(''), sentences: sentenceRanges(list) });
      return;
    }
    for (const child of el.children) walk(child, closed || CLOSED.has(el.name));
  };
  for (const child of doc.children) walk(child, false);
  return { paragraphs, pieces };
}

function escapeRegExp(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function phrasePattern(phrase: string): RegExp | null {
  const words = phrase.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const body = words.map(escapeRegExp).join('\\s+');
  const first = [...phrase.trim()][0]!;
  const last = [...phrase.trim()].at(-1)!;
  // Word boundaries where the phrase's edge is a word character of a spaced script; Han and kana
  // have no spaces between words, so a phrase there matches wherever it stands.
  const before = WORD.test(first) && !HAN.test(first) ? '(?<![\\p{L}\\p{N}_])' : '';
  const after = WORD.test(last) && !HAN.test(last) ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`${before}${body}${after}`, 'giu');
}

function escapeAttr(s: string) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function sameUrl(a: string, b: string) {
  return a.trim().replace(/\/+$/, '').toLowerCase() === b.trim().replace(/\/+$/, '').toLowerCase();
}

/**
 * Places up to `maxLinks` links, one per target, each on the first occurrence of one of its phrases
 * (case-insensitive, on word boundaries) inside a paragraph's own text: never in headings, links,
 * captions, code or quotes, never in the article's first sentence, at most one new link per sentence.
 * Targets are taken in the order given (most relevant first); the page itself and repeats are skipped.
 */
export function weaveLinks(html: string, targets: LinkTarget[], options: WeaveOptions = {}): { html: string; links: PlacedLink[] } {
  const maxLinks = Math.max(0, Math.floor(options.maxLinks ?? 3));
  const { paragraphs, pieces } = collectParagraphs(html);
  const firstParagraph = paragraphs.findIndex((p) => p.text.trim() !== '');
  const usedSentences = new Set<string>();
  if (firstParagraph >= 0) usedSentences.add(`${firstParagraph}:0`);
  const usedUrls: string[] = [];
  const insertions: { rawStart: number; rawEnd: number; url: string }[] = [];
  const links: PlacedLink[] = [];

  for (const target of targets) {
    if (links.length >= maxLinks) break;
    const url = target.url.trim();
    if (!ABSOLUTE.test(url)) continue;
    if (options.selfUrl && sameUrl(url, options.selfUrl)) continue;
    if (usedUrls.some((u) => sameUrl(u, url))) continue;
    let placed = false;
    for (const phrase of target.phrases) {
      const pattern = phrasePattern(phrase);
      if (!pattern) continue;
      for (let p = 0; p < paragraphs.length && !placed; p++) {
        const para = paragraphs[p]!;
        // The regex runs over the text; char indices map code points, so rebuild offsets per char.
        const offsets: number[] = [];
        let acc = 0;
        for (const c of para.chars) {
          offsets.push(acc);
          acc += c.ch.length;
        }
        offsets.push(acc);
        pattern.lastIndex = 0;
        for (let m = pattern.exec(para.text); m && !placed; m = pattern.exec(para.text)) {
          if (m[0].length === 0) {
            pattern.lastIndex++;
            continue;
          }
          const s = offsets.indexOf(m.index);
          const e = offsets.indexOf(m.index + m[0].length);
          if (s < 0 || e <= s) continue;
          const chars = para.chars.slice(s, e);
          const node = chars[0]!.node;
          if (node < 0 || !pieces[node]!.eligible || chars.some((c) => c.node !== node)) continue;
          const sentenceIndex = para.sentences.findIndex(([a, b]) => s >= a && e <= b);
          if (sentenceIndex < 0 || usedSentences.has(`${p}:${sentenceIndex}`)) continue;
          const [a, b] = para.sentences[sentenceIndex]!;
          usedSentences.add(`${p}:${sentenceIndex}`);
          insertions.push({ rawStart: chars[0]!.rawStart, rawEnd: chars.at(-1)!.rawEnd, url });
          links.push({
            anchor: chars.map((c) => c.ch).join(''),
            url,
            title: target.title,
            sentence: para.chars
              .slice(a, b)
              .map((c) => c.ch)
              .join('')
              .trim(),
          });
          placed = true;
        }
      }
      if (placed) break;
    }
    if (placed) usedUrls.push(url);
  }

  const rel = options.rel === undefined ? LINK_REL : options.rel;
  const relAttr = rel ? ` rel="${escapeAttr(rel)}"` : '';
  let out = html;
  for (const ins of [...insertions].sort((x, y) => y.rawStart - x.rawStart)) {
    out = `${out.slice(0, ins.rawStart)}<a href="${escapeAttr(ins.url)}"${relAttr}>${out.slice(ins.rawStart, ins.rawEnd)}</a>${out.slice(ins.rawEnd)}`;
  }
  return { html: out, links };
}

/** Whether the HTML already holds a link to `url` as weaveLinks writes it (a fix-up run twice adds nothing). */
export function hasLinkTo(html: string, url: string): boolean {
  return html.includes(`href="${escapeAttr(url.trim())}"`);
}
