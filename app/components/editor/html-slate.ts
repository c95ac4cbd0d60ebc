import type { Descendant } from 'slate';

// HTML ↔ Slate for the rich editor. The HTML comes from our sanitizer (and goes back through it on
// save), so only the shapes it allows are mapped; anything else keeps its text as a paragraph.

export type MarkName = 'bold' | 'italic' | 'underline' | 'code';
export type BlockType =
  | 'paragraph'
  | 'heading-one'
  | 'heading-two'
  | 'heading-three'
  | 'heading-four'
  | 'block-quote'
  | 'bulleted-list'
  | 'numbered-list'
  | 'list-item';
export type EditorText = { text: string } & Partial<Record<MarkName, true>>;
export type EditorElement =
  | { type: BlockType; children: Descendant[] }
  | { type: 'link'; url: string; children: Descendant[] }
  | { type: 'image'; url: string; alt: string; children: Descendant[] };

const blockTags: Record<string, BlockType> = {
  P: 'paragraph',
  H1: 'heading-one',
  H2: 'heading-two',
  H3: 'heading-three',
  H4: 'heading-four',
  H5: 'heading-four',
  H6: 'heading-four',
  BLOCKQUOTE: 'block-quote',
  UL: 'bulleted-list',
  OL: 'numbered-list',
  LI: 'list-item',
};
const markTags: Record<string, MarkName> = { STRONG: 'bold', B: 'bold', EM: 'italic', I: 'italic', U: 'underline', CODE: 'code' };
const tagOf: Record<BlockType, string> = {
  paragraph: 'p',
  'heading-one': 'h1',
  'heading-two': 'h2',
  'heading-three': 'h3',
  'heading-four': 'h4',
  'block-quote': 'blockquote',
  'bulleted-list': 'ul',
  'numbered-list': 'ol',
  'list-item': 'li',
};

const isBlockNode = (n: Descendant) => 'type' in n && (n as EditorElement).type !== 'link';

function inlineNodes(node: Node, marks: Partial<Record<MarkName, true>>): Descendant[] {
  if (node.nodeType === 3) return [{ text: node.textContent ?? '', ...marks } as Descendant];
  if (node.nodeType !== 1) return [];
  const el = node as HTMLElement;
  const mark = markTags[el.tagName];
  const nextMarks = mark ? { ...marks, [mark]: true as const } : marks;
  if (el.tagName === 'BR') return [{ text: '\n', ...marks } as Descendant];
  if (el.tagName === 'A') {
    const children = [...el.childNodes].flatMap((c) => inlineNodes(c, nextMarks)).filter((n) => !isBlockNode(n));
    return [
      { type: 'link', url: el.getAttribute('href') ?? '', children: children.length ? children : [{ text: '' }] } as unknown as Descendant,
    ];
  }
  return [...el.childNodes].flatMap((c) => inlineNodes(c, nextMarks));
}

function blocks(node: Node): Descendant[] {
  if (node.nodeType === 3) {
    const text = node.textContent ?? '';
    return text.trim() ? [{ type: 'paragraph', children: [{ text }] } as unknown as Descendant] : [];
  }
  if (node.nodeType !== 1) return [];
  const el = node as HTMLElement;
  if (el.tagName === 'IMG') {
    return [
      {
        type: 'image',
        url: el.getAttribute('src') ?? '',
        alt: el.getAttribute('alt') ?? '',
        children: [{ text: '' }],
      } as unknown as Descendant,
    ];
  }
  const type = blockTags[el.tagName];
  if (type === 'bulleted-list' || type === 'numbered-list') {
    const items = [...el.children].filter((c) => c.tagName === 'LI').map((li) => ({ type: 'list-item', children: textChildren(li) }));
    return items.length ? [{ type, children: items } as unknown as Descendant] : [];
  }
  if (type) {
    // A block holding an image (e.g. <p><img></p>) becomes the image itself.
    const img = el.querySelector('img');
    if (img && !el.textContent?.trim()) return blocks(img);
    return [{ type, children: textChildren(el) } as unknown as Descendant];
  }
  if (markTags[el.tagName] || el.tagName === 'A' || el.tagName === 'SPAN') {
    return [{ type: 'paragraph', children: textChildren(el, true) } as unknown as Descendant];
  }
  // Containers (div, section, figure, article...): their children in order.
  return [...el.childNodes].flatMap(blocks);
}

function textChildren(el: Element, includeSelf = false): Descendant[] {
  const children = includeSelf ? inlineNodes(el, {}) : [...el.childNodes].flatMap((c) => inlineNodes(c, {}));
  return children.length ? children : [{ text: '' } as Descendant];
}

/** HTML → Slate value (browser only: uses DOMParser). Never empty. */
export function htmlToSlate(html: string): Descendant[] {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const value = [...doc.body.childNodes].flatMap(blocks);
  return value.length ? value : [{ type: 'paragraph', children: [{ text: '' }] } as unknown as Descendant];
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function serializeNode(node: Descendant): string {
  if (!('type' in node)) {
    const leaf = node as EditorText;
    let out = escapeHtml(leaf.text).replace(/\n/g, '<br>');
    if (leaf.code) out = `<code>${out}</code>`;
    if (leaf.underline) out = `<u>${out}</u>`;
    if (leaf.italic) out = `<em>${out}</em>`;
    if (leaf.bold) out = `<strong>${out}</strong>`;
    return out;
  }
  const el = node as EditorElement;
  const inner = el.children.map(serializeNode).join('');
  if (el.type === 'link') return `<a href="${escapeHtml(el.url)}">${inner}</a>`;
  if (el.type === 'image') return `<p><img src="${escapeHtml(el.url)}" alt="${escapeHtml(el.alt)}"></p>`;
  const tag = tagOf[el.type];
  return `<${tag}>${inner}</${tag}>`;
}

/** Slate value → HTML (the server sanitizes it again on save). */
export function slateToHtml(value: Descendant[]): string {
  return value.map(serializeNode).join('\n');
}
