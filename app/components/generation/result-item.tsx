import { Form } from '@remix-run/react';
import { Icon } from '~/components/icons';
import { TopicLine, topicLine } from '~/components/result-topic';
import { buttonClass } from '~/components/ui/button';
import { showToast } from '~/components/ui/toast';
import { imageFileName, textFileName } from '~/utils/download-names';
import { formatDateTime } from '~/utils/time-zone';
import { resultFailureText } from '~/utils/generation-errors';
import { BulkCheckbox } from '~/components/wordpress/bulk-select';
import { PublicationStatus } from '~/components/wordpress/publication-status';
import { RESULTS_ACTION, resultDownloadUrl, runUrl } from './urls';
import { ResultEditor } from './result-editor';
import { QualityReportView } from './quality-report';
import { FixActions } from './fix-actions';
import type { ResultView } from './result-view';
import { useResultRows } from './result-rows';
import { AppLink } from '~/components/ui/app-link';

const dots = {
  processing: 'bg-blue-500 motion-safe:animate-pulse',
  planned: 'bg-amber-500',
  completed: 'bg-emerald-500',
  failed: 'bg-red-500',
  canceled: 'bg-slate-400',
} as const;

const smallButton = buttonClass('secondary', 'sm');

/** Visible text of an article's HTML (for copying). */
function plainText(html: string): string {
  const el = document.createElement('div');
  el.innerHTML = html;
  return (el.innerText || el.textContent || '').trim();
}

/** A row of the results list (inside its ResultRowsProvider). */
export function ResultItem({ result }: { result: ResultView }) {
  const { t, language, timeZone, hydrated, returnTo, onView, wordpress, busy: pending } = useResultRows();
  const busy = (intent: string) => pending(result.id, intent);
  const failed = result.status === 'failed';
  const completed = result.status === 'completed';
  const title = result.title || result.prompt || t('results.untitled');
  const created = formatDateTime(result.createdAt, language, timeZone);
  const images = result.type === 'image' ? (result.metadata.imageUrls ?? []) : [];
  const original = result.metadata.originalPrompt ?? result.prompt;
  const translated = result.metadata.translatedPrompt;
  const brief = result.metadata.brief;
  const fileOf = (i: number) => imageFileName(result.prompt, 'image/png', images.length > 1 ? i + 1 : undefined);

  const copy = async () => {
    const text =
      result.type === 'text'
        ? `${result.title ? `${result.title}\n\n` : ''}${plainText(result.content ?? '')}`
        : images.map((u) => new URL(u, window.location.origin).href).join('\n');
    try {
      await navigator.clipboard.writeText(text);
      showToast({ type: 'success', title: t('toasts.copied') });
    } catch {
      showToast({ type: 'error', title: t('results.actions.copyFailed') });
    }
  };

  return (
    <li
      data-testid="result"
      data-status={result.status}
      className={`overflow-hidden rounded-xl ring-1 ${failed ? 'bg-red-50 ring-red-200' : 'bg-white ring-slate-200'}`}
    >
      <details className="group">
        <summary className="flex cursor-pointer list-none items-start gap-3 p-4 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
          <span aria-hidden="true" className={`mt-1.5 size-2.5 shrink-0 rounded-full ${dots[result.status]}`} />
          {completed && images[0] ? (
            // The first image as a thumbnail in the row, from our image route, loaded
            // only when it scrolls into view; the full images are in the expanded card.
            <img
              src={images[0]}
              alt=""
              loading="lazy"
              decoding="async"
              width={56}
              height={56}
              data-testid="result-thumbnail"
              className="size-14 shrink-0 rounded-lg bg-slate-100 object-cover ring-1 ring-slate-200"
            />
          ) : null}
          <span className="min-w-0 flex-1">
            <span className="block break-words font-medium text-slate-900" data-testid="result-title">
              {title}
            </span>
            {result.type === 'text' ? (
              <TopicLine line={topicLine(t, title, result.prompt, result.seo?.focusKeyword)} className="mt-0.5" />
            ) : null}
            <span className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-600">
              <span data-testid="result-status">{t(`results.status.${result.status}`)}</span>
              <span>{result.type === 'text' ? t('results.filter.text') : t('results.filter.image')}</span>
              {result.type === 'text' && completed ? (
                <>
                  <span>{t('results.characters', { count: result.characterCount })}</span>
                  <span>{t('results.words', { count: result.wordCount })}</span>
                </>
              ) : null}
              {result.type === 'image' && completed ? <span>{t('results.images', { count: images.length })}</span> : null}
              <time dateTime={result.createdAt}>{created}</time>
            </span>
          </span>
          <Icon name="chevronDown" className="mt-1 size-4 shrink-0 text-slate-500 transition-transform group-open:rotate-180" />
        </summary>
        <div className="flex flex-col gap-3 px-4 pb-4 pl-9 text-sm">
          {result.type === 'image' ? (
            <dl className="grid gap-1 text-slate-700">
              <div>
                <dt className="inline font-medium text-slate-800">{t('results.originalPrompt')}: </dt>
                <dd className="inline break-words">{original}</dd>
              </div>
              {translated && translated !== original ? (
                <div>
                  <dt className="inline font-medium text-slate-800">{t('results.translatedPrompt')}: </dt>
                  <dd className="inline break-words">{translated}</dd>
                </div>
              ) : null}
            </dl>
          ) : result.title ? (
            <p className="break-words text-slate-700">
              <span className="font-medium text-slate-800">{t('results.prompt')}: </span>
              {result.prompt}
            </p>
          ) : null}

          {brief ? (
            // The topic's own CSV columns, as they went into its prompt.
            <dl className="grid gap-1 text-slate-700" data-testid="result-brief" aria-label={t('inputs:brief.label')}>
              {(['title', 'keywords', 'instructions'] as const).map((field) =>
                brief[field] ? (
                  <div key={field}>
                    <dt className="inline font-medium text-slate-800">{t(`inputs:brief.${field}`)}: </dt>
                    <dd className="inline whitespace-pre-line break-words">{brief[field]}</dd>
                  </div>
                ) : null,
              )}
            </dl>
          ) : null}

          {failed || result.status === 'canceled' ? (
            <p className="break-words text-red-700" data-testid="result-error" data-error-code={result.errorCode ?? undefined}>
              {!failed ? (
                t('results.status.canceled')
              ) : result.errorCode ? (
                <>
                  <strong>{t('results.error')}</strong>: {resultFailureText(t, result)}
                </>
              ) : (
                // Stored before failures had codes: whatever it says is not shown.
                resultFailureText(t, result)
              )}
            </p>
          ) : null}
          {result.status === 'processing' ? <p className="text-slate-600">{t('results.processing')}</p> : null}
          {result.status === 'planned' ? (
            <p className="text-slate-600">
              {t('results.planned')}{' '}
              <AppLink to={`${runUrl(result.runId)}#plan-${result.id}`} className="font-semibold text-indigo-700 underline">
                {t('results.reviewPlan')}
              </AppLink>
            </p>
          ) : null}

          {completed && result.type === 'text' && result.content ? (
            <div
              className="article max-w-none break-words text-slate-800 [&_a]:text-indigo-700 [&_a]:underline [&_h1]:mt-4 [&_h1]:text-xl [&_h1]:font-bold [&_h2]:mt-4 [&_h2]:text-lg [&_h2]:font-semibold [&_h3]:mt-3 [&_h3]:font-semibold [&_img]:my-3 [&_img]:max-h-80 [&_img]:rounded-lg [&_li]:my-0.5 [&_ol]:list-decimal [&_ol]:pl-6 [&_p]:my-2 [&_ul]:list-disc [&_ul]:pl-6"
              data-testid="result-content"
              // Sanitized by the server when stored and again when edited (allow-list, no scripts).
              dangerouslySetInnerHTML={{ __html: result.content }}
            />
          ) : null}

          {completed && images.length ? (
            <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4">
              {images.map((url, i) => (
                <li key={url}>
                  <a
                    href={url}
                    onClick={(event) => {
                      event.preventDefault();
                      onView({ url, alt: t('results.imageAlt', { prompt: result.prompt }), filename: fileOf(i) });
                    }}
                    className="block overflow-hidden rounded-lg ring-1 ring-slate-200 focus-visible:outline-2 focus-visible:outline-indigo-600"
                  >
                    <img
                      src={url}
                      alt={t('results.imageAlt', { prompt: result.prompt })}
                      loading="lazy"
                      className="aspect-square w-full bg-slate-100 object-cover"
                    />
                    <span className="sr-only">{t('results.actions.view')}</span>
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </details>

      {result.quality ? (
        <div className="px-4 pb-3 pl-9">
          <QualityReportView
            resultId={result.id}
            report={result.quality}
            approvedAt={result.approvedAt ?? null}
            held={result.held ?? false}
            returnTo={returnTo}
            approving={busy('approve')}
          />
        </div>
      ) : null}

      {completed && result.type === 'text' && result.content && result.updatedAt ? (
        <div className="px-4 pb-3 pl-9">
          <FixActions result={result} />
        </div>
      ) : null}

      {result.publication ? (
        <div className="px-4 pb-3 pl-9">
          <PublicationStatus publication={result.publication} timeZone={wordpress?.timeZone ?? 'UTC'} />
        </div>
      ) : null}

      <div
        role="group"
        aria-label={t('results.actions.label')}
        className="flex flex-wrap items-start gap-2 border-t border-slate-200/70 px-4 py-2.5"
      >
        {completed ? (
          <>
            {wordpress?.canPublish && wordpress.hasSites && result.type === 'text' && result.content ? (
              <BulkCheckbox resultId={result.id} label={title} />
            ) : null}
            {hydrated ? (
              <button type="button" className={smallButton} onClick={copy}>
                {t('results.actions.copy')}
              </button>
            ) : null}
            <a
              href={resultDownloadUrl(result.id)}
              download={result.type === 'text' ? textFileName(result.prompt) : fileOf(0)}
              className={smallButton}
              onClick={() =>
                showToast({
                  type: 'success',
                  title: t('toasts.downloadComplete'),
                  description: result.type === 'image' ? t('toasts.imageSaved', { file: fileOf(0) }) : t('toasts.downloadStarted'),
                })
              }
            >
              {t('results.actions.download')}
            </a>
            {/* WordPress: the Publish dialog, a page of its own (works without JavaScript); without a
                connected site the result links to /wordpress. */}
            {result.content && wordpress?.hasSites !== false ? (
              <AppLink to={`/app/publish/${result.id}`} className={smallButton}>
                {t('wordpress:publish.open')}
              </AppLink>
            ) : result.content ? (
              <AppLink to="/wordpress" className={smallButton}>
                {t('wordpress:row.connectSite')}
              </AppLink>
            ) : null}
            {result.type === 'text' && result.content ? (
              // Its proposed internal links are reviewed with the rest of its run.
              <AppLink to={`${runUrl(result.runId)}#post-${result.id}`} className={smallButton}>
                {t('links.open')}
              </AppLink>
            ) : null}
            {result.type === 'text' ? <ResultEditor result={result} /> : null}
          </>
        ) : (
          <>
            {result.status !== 'processing' && result.status !== 'planned' ? (
              <Form method="post" action={RESULTS_ACTION}>
                <input type="hidden" name="intent" value="retry" />
                <input type="hidden" name="id" value={result.id} />
                <input type="hidden" name="returnTo" value={returnTo} />
                <button type="submit" className={smallButton} disabled={busy('retry')}>
                  {t('results.actions.retry')}
                </button>
              </Form>
            ) : null}
            <Form method="post" action={RESULTS_ACTION}>
              <input type="hidden" name="intent" value="remove" />
              <input type="hidden" name="id" value={result.id} />
              <input type="hidden" name="returnTo" value={returnTo} />
              <button type="submit" className={`${smallButton} text-red-700`} disabled={busy('remove')}>
                {t('results.actions.remove')}
              </button>
            </Form>
          </>
        )}
      </div>
    </li>
  );
}
