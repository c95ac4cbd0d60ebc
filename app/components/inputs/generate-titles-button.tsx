import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '~/components/icons';
import { Button } from '~/components/ui/button';
import type { TitleOptions } from '~/services/titles.server';
import { keywordLines } from '~/utils/text-lines';
import { showToast } from '~/components/ui/toast';
import { errorOf } from './response-error';

export const TITLES_FORM_ACTION = '/app/titles';

/** The service's title options, read from the workspace form (which holds other fields too). */
export type TitleOptionsInput = TitleOptions & Record<string, unknown>;

/**
 * Generate-titles button: "Generate title" for one line, "Generate titles" for several;
 * disabled while running or when the topics are empty. It sits inside the generation form: without
 * JavaScript it submits that form to /app/titles (formAction), which puts the titles into the text
 * area; with JavaScript it calls POST /api/generate-blog-title and hands the titles to `onTitles`.
 */
export function GenerateTitlesButton({
  keywords,
  options,
  onTitles,
  disabled = false,
}: {
  keywords: string;
  options?: TitleOptionsInput | (() => TitleOptionsInput);
  /** The titles, one per keyword line in order (the workspace replaces the text area's lines). */
  onTitles: (titles: string[]) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation('inputs');
  const [busy, setBusy] = useState(false);
  // Without JavaScript the text area's content is unknown until the post: never disabled there.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const lines = keywordLines(keywords);
  const count = Math.max(1, lines.length);

  async function run() {
    if (!lines.length) {
      showToast({ type: 'error', title: t('titles.missingInputTitle'), description: t('titles.missingInput') });
      return;
    }
    setBusy(true);
    try {
      const extra = typeof options === 'function' ? options() : (options ?? {});
      const multipleKeywords = lines.length > 1;
      const res = await fetch('/api/generate-blog-title', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...extra, keywords: lines.join('\n'), multipleKeywords }),
      });
      if (!res.ok) {
        const message =
          res.status >= 500 || res.status === 429 || res.status === 400
            ? await errorOf(res)
            : t('titles.failedStatus', { status: res.statusText || res.status });
        showToast({ type: 'error', title: t('titles.failedTitle'), description: message });
        return;
      }
      const body = (await res.json()) as { title?: string; titles?: string[] };
      const titles = multipleKeywords ? (body.titles ?? []) : body.title ? [body.title] : [];
      onTitles(titles);
      showToast(
        multipleKeywords
          ? { type: 'success', title: t('titles.generatedManyTitle'), description: t('titles.generatedManyBody', { count: titles.length }) }
          : { type: 'success', title: t('titles.generatedTitle'), description: t('titles.generatedBody') },
      );
    } catch {
      showToast({ type: 'error', title: t('titles.failedTitle'), description: t('titles.failedBody') });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Button
      type="submit"
      formAction={TITLES_FORM_ACTION}
      formMethod="post"
      formNoValidate
      variant="secondary"
      size="sm"
      pending={busy}
      disabled={disabled || (hydrated && !lines.length)}
      onClick={(event) => {
        event.preventDefault();
        void run();
      }}
    >
      {!busy ? <Icon name="sparkles" className="size-4" /> : null}
      {busy ? t('titles.busy') : t('titles.button', { count })}
    </Button>
  );
}
