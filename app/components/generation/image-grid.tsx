import { useTranslation } from 'react-i18next';
import { imageFileName } from '~/utils/download-names';
import type { ViewedImage } from './image-viewer';
import type { ResultView } from './result-view';
import { resultDownloadUrl } from './urls';

/**
 * The grid view of image results: one tile per image, its thumbnail served by our image
 * route and lazy-loaded, the prompt under it. A thumbnail is a link to the image itself (the
 * browser shows it without JavaScript); with the page's script it opens the viewer. Results with
 * no image yet (processing, failed, canceled) show their state; their actions are in the list view.
 */
export function ImageGrid({ results, onView }: { results: ResultView[]; onView: (image: ViewedImage) => void }) {
  const { t } = useTranslation('workspace');
  return (
    <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" data-testid="results-grid">
      {results.flatMap((result) => {
        const urls = result.status === 'completed' ? (result.metadata.imageUrls ?? []) : [];
        const alt = t('results.imageAlt', { prompt: result.prompt });
        if (urls.length === 0) {
          return [
            <li
              key={result.id}
              data-testid="grid-tile"
              data-status={result.status}
              className="flex aspect-square flex-col justify-end rounded-xl bg-slate-100 p-3 text-xs ring-1 ring-slate-200"
            >
              <span className="line-clamp-3 break-words font-medium text-slate-900">{result.prompt}</span>
              <span className={result.status === 'failed' ? 'text-red-700' : 'text-slate-600'}>{t(`results.status.${result.status}`)}</span>
            </li>,
          ];
        }
        return urls.map((url, i) => {
          const filename = imageFileName(result.prompt, 'image/png', urls.length > 1 ? i + 1 : undefined);
          return (
            <li key={url} data-testid="grid-tile" data-status={result.status} className="flex flex-col gap-1.5">
              <a
                href={url}
                onClick={(event) => {
                  event.preventDefault();
                  onView({ url, alt, filename });
                }}
                className="block overflow-hidden rounded-xl ring-1 ring-slate-200 focus-visible:outline-2 focus-visible:outline-indigo-600"
              >
                <img src={url} alt={alt} loading="lazy" decoding="async" className="aspect-square w-full bg-slate-100 object-cover" />
                <span className="sr-only">{t('results.actions.view')}</span>
              </a>
              <div className="flex items-start justify-between gap-2 text-xs">
                <span className="line-clamp-2 min-w-0 break-words text-slate-800">{result.prompt}</span>
                <a
                  href={resultDownloadUrl(result.id, i)}
                  download={filename}
                  className="shrink-0 font-semibold text-indigo-700 hover:underline"
                  aria-label={`${t('results.actions.download')}: ${result.prompt}`}
                >
                  {t('results.actions.download')}
                </a>
              </div>
            </li>
          );
        });
      })}
    </ul>
  );
}
