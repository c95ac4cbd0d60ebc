import { useCallback, useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createEditor, Editor, Element as SlateElement, Transforms, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { Editable, Slate, withReact, type RenderElementProps, type RenderLeafProps } from 'slate-react';
import { htmlToSlate, slateToHtml, type BlockType, type EditorElement, type EditorText, type MarkName } from './html-slate';
import type { RichTextEditorProps } from './rich-text-editor';

// The rich-text editor itself (slate and its HTML conversion): loaded by RichTextEditor when an
// editor is first on screen, not with the page.

const LIST_TYPES: BlockType[] = ['numbered-list', 'bulleted-list'];

function isMarkActive(editor: Editor, mark: MarkName) {
  const marks = Editor.marks(editor) as Partial<EditorText> | null;
  return Boolean(marks?.[mark]);
}

function toggleMark(editor: Editor, mark: MarkName) {
  if (isMarkActive(editor, mark)) Editor.removeMark(editor, mark);
  else Editor.addMark(editor, mark, true);
}

function isBlockActive(editor: Editor, type: BlockType) {
  const { selection } = editor;
  if (!selection) return false;
  const [match] = Editor.nodes(editor, {
    at: Editor.unhangRange(editor, selection),
    match: (n) => !Editor.isEditor(n) && SlateElement.isElement(n) && (n as EditorElement).type === type,
  });
  return Boolean(match);
}

function toggleBlock(editor: Editor, type: BlockType) {
  const active = isBlockActive(editor, type);
  const isList = LIST_TYPES.includes(type);
  Transforms.unwrapNodes(editor, {
    match: (n) => !Editor.isEditor(n) && SlateElement.isElement(n) && LIST_TYPES.includes((n as EditorElement).type as BlockType),
    split: true,
  });
  const next: BlockType = active ? 'paragraph' : isList ? 'list-item' : type;
  Transforms.setNodes(editor, { type: next } as Partial<SlateElement>);
  if (!active && isList) Transforms.wrapNodes(editor, { type, children: [] } as unknown as SlateElement);
}

function RenderElement({ attributes, children, element }: RenderElementProps) {
  const el = element as unknown as EditorElement;
  switch (el.type) {
    case 'heading-one':
      return (
        <h1 {...attributes} className="mt-4 text-2xl font-bold">
          {children}
        </h1>
      );
    case 'heading-two':
      return (
        <h2 {...attributes} className="mt-4 text-xl font-semibold">
          {children}
        </h2>
      );
    case 'heading-three':
      return (
        <h3 {...attributes} className="mt-3 text-lg font-semibold">
          {children}
        </h3>
      );
    case 'heading-four':
      return (
        <h4 {...attributes} className="mt-3 font-semibold">
          {children}
        </h4>
      );
    case 'block-quote':
      return (
        <blockquote {...attributes} className="border-l-4 border-slate-300 pl-3 italic">
          {children}
        </blockquote>
      );
    case 'bulleted-list':
      return (
        <ul {...attributes} className="list-disc pl-6">
          {children}
        </ul>
      );
    case 'numbered-list':
      return (
        <ol {...attributes} className="list-decimal pl-6">
          {children}
        </ol>
      );
    case 'list-item':
      return <li {...attributes}>{children}</li>;
    case 'link':
      return (
        <a {...attributes} href={el.url} className="text-indigo-700 underline">
          {children}
        </a>
      );
    case 'image':
      return (
        <div {...attributes}>
          <div contentEditable={false}>
            <img src={el.url} alt={el.alt} className="my-2 max-h-64 rounded-lg" />
          </div>
          {children}
        </div>
      );
    default:
      return (
        <p {...attributes} className="my-2">
          {children}
        </p>
      );
  }
}

function RenderLeaf({ attributes, children, leaf }: RenderLeafProps) {
  const l = leaf as EditorText;
  let out: ReactNode = children;
  if (l.bold) out = <strong>{out}</strong>;
  if (l.italic) out = <em>{out}</em>;
  if (l.underline) out = <u>{out}</u>;
  if (l.code) out = <code className="rounded bg-slate-100 px-1">{out}</code>;
  return <span {...attributes}>{out}</span>;
}

function ToolButton({ label, active, onPress, children }: { label: string; active: boolean; onPress: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      aria-pressed={active}
      onMouseDown={(event) => {
        event.preventDefault();
        onPress();
      }}
      className={`min-w-8 rounded-md px-2 py-1 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-indigo-600 ${
        active ? 'bg-slate-200 text-slate-900' : 'text-slate-700 hover:bg-slate-100'
      }`}
    >
      {children}
    </button>
  );
}

export function SlateEditor({ id, name, defaultValue, label, minHeight, disabled }: RichTextEditorProps) {
  const { t } = useTranslation('workspace');
  const editor = useMemo(() => {
    const e = withHistory(withReact(createEditor()));
    const { isInline, isVoid } = e;
    e.isInline = (el) => (el as unknown as EditorElement).type === 'link' || isInline(el);
    e.isVoid = (el) => (el as unknown as EditorElement).type === 'image' || isVoid(el);
    return e;
  }, []);
  const initialValue = useMemo<Descendant[]>(() => htmlToSlate(defaultValue), [defaultValue]);
  const [html, setHtml] = useState(defaultValue);
  const [, force] = useState(0);
  const renderElement = useCallback((p: RenderElementProps) => <RenderElement {...p} />, []);
  const renderLeaf = useCallback((p: RenderLeafProps) => <RenderLeaf {...p} />, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!(event.metaKey || event.ctrlKey)) return;
    const mark = ({ b: 'bold', i: 'italic', u: 'underline' } as const)[event.key.toLowerCase() as 'b' | 'i' | 'u'];
    if (mark) {
      event.preventDefault();
      toggleMark(editor, mark);
    }
  };

  return (
    <div className="flex flex-col gap-1.5">
      <span id={`${id}-label`} className="text-sm font-medium text-slate-800">
        {label}
      </span>
      <Slate
        editor={editor}
        initialValue={initialValue}
        onChange={(value) => {
          force((n) => n + 1);
          if (editor.operations.some((op) => op.type !== 'set_selection')) setHtml(slateToHtml(value));
        }}
      >
        <div className="rounded-lg bg-white shadow-sm ring-1 ring-inset ring-slate-300 focus-within:ring-2 focus-within:ring-indigo-600">
          <div role="toolbar" aria-label={t('results.editor.toolbar')} className="flex flex-wrap gap-1 border-b border-slate-200 p-1.5">
            <ToolButton label={t('results.editor.bold')} active={isMarkActive(editor, 'bold')} onPress={() => toggleMark(editor, 'bold')}>
              B
            </ToolButton>
            <ToolButton
              label={t('results.editor.italic')}
              active={isMarkActive(editor, 'italic')}
              onPress={() => toggleMark(editor, 'italic')}
            >
              <span className="italic">I</span>
            </ToolButton>
            <ToolButton
              label={t('results.editor.heading2')}
              active={isBlockActive(editor, 'heading-two')}
              onPress={() => toggleBlock(editor, 'heading-two')}
            >
              H2
            </ToolButton>
            <ToolButton
              label={t('results.editor.heading3')}
              active={isBlockActive(editor, 'heading-three')}
              onPress={() => toggleBlock(editor, 'heading-three')}
            >
              H3
            </ToolButton>
            <ToolButton
              label={t('results.editor.bulleted')}
              active={isBlockActive(editor, 'bulleted-list')}
              onPress={() => toggleBlock(editor, 'bulleted-list')}
            >
              •
            </ToolButton>
            <ToolButton
              label={t('results.editor.numbered')}
              active={isBlockActive(editor, 'numbered-list')}
              onPress={() => toggleBlock(editor, 'numbered-list')}
            >
              1.
            </ToolButton>
            <ToolButton
              label={t('results.editor.quote')}
              active={isBlockActive(editor, 'block-quote')}
              onPress={() => toggleBlock(editor, 'block-quote')}
            >
              “
            </ToolButton>
          </div>
          <Editable
            id={id}
            aria-labelledby={`${id}-label`}
            aria-multiline="true"
            readOnly={disabled}
            renderElement={renderElement}
            renderLeaf={renderLeaf}
            onKeyDown={onKeyDown}
            spellCheck
            data-testid="rich-editor"
            className="px-3 py-2 text-sm text-slate-900 focus:outline-none"
            style={{ minHeight }}
          />
        </div>
      </Slate>
      <input type="hidden" name={name} value={html} />
    </div>
  );
}
