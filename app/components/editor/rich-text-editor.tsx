import { useRef } from 'react';
import { useHydrated } from '~/components/generation/use-hydrated';
import { onDemand, useOnDemand } from '~/components/on-demand';

// The rich-text editor (slate). It posts its HTML in a hidden input named `name`, so it sits in a
// plain form. Before its script runs (or without JavaScript) it is a real textarea with the HTML,
// which posts under the same name (the editor falls back to a plain textarea). Slate is most of the
// workspace's script, so it is downloaded when an editor is first on screen; until it has arrived,
// or if it cannot be downloaded, the textarea stays.

const textareaClass =
  'block w-full rounded-lg border-0 bg-white px-3 py-2 font-mono text-xs text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-inset focus:ring-indigo-600';

export type RichTextEditorProps = {
  id: string;
  name: string;
  /** The starting HTML. */
  defaultValue: string;
  label: string;
  /** Help under the fallback textarea. */
  fallbackHelp?: string;
  minHeight?: number;
  disabled?: boolean;
};

const slate = onDemand(() => import('./slate-editor'));

export function RichTextEditor(props: RichTextEditorProps) {
  const hydrated = useHydrated();
  const loaded = useOnDemand(slate, hydrated);
  // What was typed into the textarea while the editor was on its way goes on in the editor.
  const typed = useRef<string | null>(null);
  const { id, name, defaultValue, label, fallbackHelp, minHeight = 300, disabled } = props;
  if (loaded) return <loaded.SlateEditor {...props} defaultValue={typed.current ?? defaultValue} minHeight={minHeight} />;
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      <textarea
        id={id}
        name={name}
        defaultValue={defaultValue}
        onChange={(event) => (typed.current = event.currentTarget.value)}
        disabled={disabled}
        aria-describedby={fallbackHelp ? `${id}-help` : undefined}
        className={textareaClass}
        style={{ minHeight }}
        data-testid="editor-fallback"
      />
      {fallbackHelp ? (
        <p id={`${id}-help`} className="text-xs text-slate-600">
          {fallbackHelp}
        </p>
      ) : null}
    </div>
  );
}
