import { Form } from '@remix-run/react';
import { useRef, useState } from 'react';
import { RichTextEditor } from '~/components/editor/rich-text-editor';
import { buttonClass } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';
import { TITLE_MAX } from '~/utils/title-heading';
import { SeoFieldset } from '~/components/wordpress/seo-fieldset';
import type { ResultView } from './result-view';
import { useResultRows } from './result-rows';
import { EDIT_PARAM, listHrefWith, RESULTS_ACTION } from './urls';

const smallButton = buttonClass('secondary', 'sm');
const summaryButton = `${smallButton} cursor-pointer list-none [&::-webkit-details-marker]:hidden`;

/** The list at `returnTo` with this result's editor open, scrolled to it. */
export function editHref(returnTo: string, id: string): string {
  return listHrefWith(returnTo, EDIT_PARAM, id, `edit-${id}`);
}

/**
 * A text result's Edit. The editor (its title, the article, its SEO fields, Save and Cancel) is built only for
 * the result being edited, not for every row (it was about half of the results page's HTML
 * and render time, each article a second time in its text area). With the page's script, Edit is a
 * `<details>` whose form renders when it opens; without it, a link to the same list with
 * `edit=<id>`, which renders that result's editor open. Save and Cancel go back to `returnTo`.
 */
export function ResultEditor({ result }: { result: ResultView }) {
  const { t, hydrated, returnTo, editing, busy } = useResultRows();
  const saving = busy(result.id, 'save');
  const opened = editing === result.id;
  const [open, setOpen] = useState(opened);
  const ref = useRef<HTMLDetailsElement>(null);
  if (!hydrated && !opened)
    return (
      <a href={editHref(returnTo, result.id)} className={smallButton}>
        {t('results.actions.edit')}
      </a>
    );
  return (
    <details
      ref={ref}
      id={`edit-${result.id}`}
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
      className="w-full sm:w-auto sm:flex-1 [&[open]]:basis-full"
    >
      <summary className={summaryButton}>{t('results.actions.edit')}</summary>
      {open ? (
        <Form method="post" action={RESULTS_ACTION} className="mt-3 flex flex-col gap-3">
          <input type="hidden" name="intent" value="save" />
          <input type="hidden" name="id" value={result.id} />
          <input type="hidden" name="returnTo" value={returnTo} />
          <div className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
            <label htmlFor={`title-${result.id}`}>{t('results.editor.title')}</label>
            <input
              id={`title-${result.id}`}
              name="title"
              required
              maxLength={TITLE_MAX}
              defaultValue={result.title ?? result.prompt}
              disabled={saving}
              className={inputClass}
              aria-describedby={`title-${result.id}-help`}
            />
            <span id={`title-${result.id}-help`} className="text-xs font-normal text-slate-600">
              {t('results.editor.titleHelp')}
            </span>
          </div>
          <RichTextEditor
            id={`editor-${result.id}`}
            name="content"
            defaultValue={result.content ?? ''}
            label={t('results.editor.label')}
            fallbackHelp={t('results.editor.htmlHelp')}
            minHeight={300}
            disabled={saving}
          />
          {result.seo ? <SeoFieldset seo={result.seo} idPrefix={`result-${result.id}`} disabled={saving} /> : null}
          <div className="flex gap-2">
            <button type="submit" className={buttonClass('primary', 'sm')} disabled={saving}>
              {saving ? t('results.actions.saving') : t('results.actions.save')}
            </button>
            <a
              href={returnTo}
              className={smallButton}
              aria-disabled={saving || undefined}
              onClick={(event) => {
                event.preventDefault();
                if (ref.current) ref.current.open = false;
              }}
            >
              {t('results.actions.cancel')}
            </a>
          </div>
        </Form>
      ) : null}
    </details>
  );
}
