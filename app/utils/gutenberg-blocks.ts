// Sanitized article HTML → Gutenberg block markup as WordPress 6.1's block serializer writes it
// (`<!-- wp:name {attrs} -->\n<html>\n<!-- /wp:name -->`, inner blocks joined by a blank line), so
// a post opens in the block editor as headings, paragraphs, lists, quotes, images and tables
// instead of one Classic block. Pure: the input must already be sanitized (prepareContent), which
// makes it well-formed (every tag closed, attributes double-quoted, no comments), so a small
// tokenizer is enough. Anything it does not know becomes a core/html block (never free HTML).

type Text = { kind: 'text'; text: string };
type Element = { kind: 'el'; name: string; attrs: string; children: Node[] };
type Node = Text | Element;

const VOID = new Set(['img', 'br', 'hr', 'wbr', 'col', 'source']);
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'br',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'i',
  'img',
  'ins',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);

const TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*"[^"]*")?)*)\s*(\/?)>/g;

function parse(html: string): Node[] {
  const root: Element = { kind: 'el', name: '#root', attrs: '', children: [] };
  const stack: Element[] = [root];
  let at = 0;
  const text = (s: string) => {
    if (s) stack[stack.length - 1]!.children.push({ kind: 'text', text: s });
  };
  for (const m of html.matchAll(TOKEN)) {
    text(html.slice(at, m.index));
    at = m.index! + m[0].length;
    const name = m[2]!.toLowerCase();
    if (m[1]) {
      // A closing tag closes up to its element (sanitized input always has it open).
      const i = stack.map((e) => e.name).lastIndexOf(name);
      if (i > 0) stack.length = i;
      continue;
    }
    const el: Element = { kind: 'el', name, attrs: m[3] ?? '', children: [] };
    stack[stack.length - 1]!.children.push(el);
    if (!VOID.has(name) && !m[4]) stack.push(el);
  }
  text(html.slice(at));
  return root.children;
}

function attrOf(el: Element, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*"([^"]*)"`, 'i').exec(el.attrs);
  return m ? m[1] : undefined;
}

function outer(n: Node): string {
  if (n.kind === 'text') return n.text;
  const open = `<${n.name}${n.attrs}>`;
  return VOID.has(n.name) ? open : `${open}${inner(n)}</${n.name}>`;
}

function inner(el: Element): string {
  return el.children.map(outer).join('');
}

const isBlank = (n: Node) => n.kind === 'text' && n.text.trim() === '';
const isInline = (n: Node) => n.kind === 'text' || INLINE.has(n.name);
const elements = (el: Element) => el.children.filter((c): c is Element => c.kind === 'el');

export type BlockOptions = {
  /** Kept as an attribute of the first block (findable in the post's content, invisible on the page). */
  marker?: string;
  /** The media library id of an image URL (its block then names it, as the editor does). */
  mediaIdOf?: (src: string) => number | undefined;
};

type Block = { name: string; attrs: Record<string, unknown>; html: string };

function serialize(b: Block): string {
  const attrs = Object.keys(b.attrs).length ? ` ${JSON.stringify(b.attrs)}` : '';
  return `<!-- wp:${b.name}${attrs} -->\n${b.html}\n<!-- /wp:${b.name} -->`;
}

const joinBlocks = (blocks: Block[]) => blocks.map(serialize).join('\n\n');

function paragraph(html: string, attrs = ''): Block {
  return { name: 'paragraph', attrs: {}, html: `<p${attrs}>${html}</p>` };
}

function image(img: Element, caption: Element | null, opts: BlockOptions): Block {
  const attrs: Record<string, unknown> = {};
  const src = attrOf(img, 'src') ?? '';
  const id = opts.mediaIdOf?.(src);
  const width = Number(attrOf(img, 'width'));
  const height = Number(attrOf(img, 'height'));
  if (id) attrs.id = id;
  if (Number.isInteger(width) && width > 0) attrs.width = width;
  if (Number.isInteger(height) && height > 0) attrs.height = height;
  // The attribute order of the image block's save(): src, alt, class, width, height, title.
  const parts = [`src="${src}"`, `alt="${attrOf(img, 'alt') ?? ''}"`];
  if (id) parts.push(`class="wp-image-${id}"`);
  if (attrs.width) parts.push(`width="${width}"`);
  if (attrs.height) parts.push(`height="${height}"`);
  const title = attrOf(img, 'title');
  if (title !== undefined) parts.push(`title="${title}"`);
  const figureClass = attrs.width || attrs.height ? 'wp-block-image is-resized' : 'wp-block-image';
  const captionHtml =
    caption && inner(caption).trim() ? `<figcaption class="wp-element-caption">${inner(caption).trim()}</figcaption>` : '';
  return { name: 'image', attrs, html: `<figure class="${figureClass}"><img ${parts.join(' ')}/>${captionHtml}</figure>` };
}

function table(el: Element): Block {
  // The table block reads rows from thead/tbody/tfoot only: loose rows go into a tbody.
  const sections = el.children
    .filter((c) => !isBlank(c))
    .reduce<Node[]>((acc, c) => {
      if (c.kind === 'el' && c.name === 'tr') {
        const last = acc[acc.length - 1];
        if (last && last.kind === 'el' && last.name === 'tbody' && last.attrs === ' data-loose') last.children.push(c);
        else acc.push({ kind: 'el', name: 'tbody', attrs: ' data-loose', children: [c] });
      } else if (c.kind === 'el' && ['thead', 'tbody', 'tfoot'].includes(c.name)) acc.push(c);
      return acc;
    }, [])
    .map((s) => (s.kind === 'el' && s.attrs === ' data-loose' ? { ...s, attrs: '' } : s));
  const body = sections.map((s) => (s.kind === 'el' ? `<${s.name}>${elements(s).map(outer).join('')}</${s.name}>` : '')).join('');
  return { name: 'table', attrs: {}, html: `<figure class="wp-block-table"><table>${body}</table></figure>` };
}

function listBlock(el: Element, opts: BlockOptions): Block {
  const items = elements(el)
    .filter((c) => c.name === 'li')
    .map((li) => {
      let text = '';
      const nested: string[] = [];
      for (const c of li.children) {
        if (c.kind === 'el' && (c.name === 'ul' || c.name === 'ol')) nested.push(serialize(listBlock(c, opts)));
        // A loose list's paragraphs: the item's rich text has no <p>, so they become lines.
        else if (c.kind === 'el' && c.name === 'p') text += `${text.trim() ? '<br>' : ''}${inner(c).trim()}`;
        else text += outer(c);
      }
      return serialize({ name: 'list-item', attrs: {}, html: `<li>${text.trim()}${nested.join('')}</li>` });
    });
  const ordered = el.name === 'ol';
  return { name: 'list', attrs: ordered ? { ordered: true } : {}, html: `<${el.name}${el.attrs}>${items.join('\n\n')}</${el.name}>` };
}

function quote(el: Element, opts: BlockOptions): Block {
  const cite = el.children.find((c): c is Element => c.kind === 'el' && c.name === 'cite');
  const body = el.children.filter((c) => c !== cite);
  const innerBlocks = joinBlocks(toBlocks(body, opts));
  const citation = cite && inner(cite).trim() ? `<cite>${inner(cite).trim()}</cite>` : '';
  return { name: 'quote', attrs: {}, html: `<blockquote class="wp-block-quote"${el.attrs}>${innerBlocks}${citation}</blockquote>` };
}

function code(el: Element): Block {
  const only = elements(el);
  const body =
    only.length === 1 && only[0]!.name === 'code' && el.children.every((c) => c === only[0] || isBlank(c)) ? inner(only[0]!) : inner(el);
  return { name: 'code', attrs: {}, html: `<pre class="wp-block-code"><code>${body}</code></pre>` };
}

/** An element that is only an image (and maybe its caption), as an image block. */
function imageOnly(el: Element, opts: BlockOptions): Block | null {
  const kids = el.children.filter((c) => !isBlank(c));
  const img = kids.find((c): c is Element => c.kind === 'el' && c.name === 'img');
  if (!img) return null;
  const caption = kids.find((c): c is Element => c.kind === 'el' && c.name === 'figcaption') ?? null;
  if (kids.length !== (caption ? 2 : 1)) return null;
  return image(img, caption, opts);
}

function toBlocks(nodes: Node[], opts: BlockOptions): Block[] {
  const blocks: Block[] = [];
  let run: Node[] = [];
  const flush = () => {
    const html = run.map(outer).join('').trim();
    run = [];
    if (html) blocks.push(paragraph(html));
  };
  for (const n of nodes) {
    if (n.kind === 'el' && n.name === 'img') {
      flush();
      blocks.push(image(n, null, opts));
      continue;
    }
    if (isInline(n)) {
      run.push(n);
      continue;
    }
    flush();
    const el = n as Element;
    const heading = /^h([1-6])$/.exec(el.name);
    if (heading) {
      const level = Number(heading[1]);
      blocks.push({
        name: 'heading',
        attrs: level === 2 ? {} : { level },
        html: `<${el.name}${el.attrs}>${inner(el).trim()}</${el.name}>`,
      });
    } else if (el.name === 'p') {
      const img = imageOnly(el, opts);
      if (img) blocks.push(img);
      else if (inner(el).trim()) blocks.push(paragraph(inner(el).trim(), el.attrs));
    } else if (el.name === 'ul' || el.name === 'ol') blocks.push(listBlock(el, opts));
    else if (el.name === 'blockquote') blocks.push(quote(el, opts));
    else if (el.name === 'table') blocks.push(table(el));
    else if (el.name === 'pre') blocks.push(code(el));
    else if (el.name === 'hr')
      blocks.push({ name: 'separator', attrs: {}, html: '<hr class="wp-block-separator has-alpha-channel-opacity"/>' });
    else if (el.name === 'figure') {
      const tableEl = elements(el).find((c) => c.name === 'table');
      const img = imageOnly(el, opts);
      if (img) blocks.push(img);
      else if (tableEl && elements(el).length === 1) blocks.push(table(tableEl));
      else blocks.push({ name: 'html', attrs: {}, html: outer(el) });
    } else if (['div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav'].includes(el.name)) {
      // A wrapper: its content, block by block.
      blocks.push(...toBlocks(el.children, opts));
    } else blocks.push({ name: 'html', attrs: {}, html: outer(el) });
  }
  flush();
  return blocks;
}

/** Block markup of sanitized HTML (empty when there is no content). */
export function htmlToBlocks(sanitizedHtml: string, opts: BlockOptions = {}): string {
  const blocks = toBlocks(parse(sanitizedHtml), opts);
  if (opts.marker && blocks[0]) blocks[0] = { ...blocks[0], attrs: { ...blocks[0].attrs, postforgeMarker: opts.marker } };
  return joinBlocks(blocks);
}

/** The names of the blocks htmlToBlocks writes (tests check that WordPress parses exactly these). */
export const BLOCK_NAMES = ['paragraph', 'heading', 'list', 'list-item', 'quote', 'image', 'table', 'code', 'separator', 'html'].map(
  (n) => `core/${n}`,
);
