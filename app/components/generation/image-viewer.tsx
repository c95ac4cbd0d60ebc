import { useTranslation } from 'react-i18next';
import { Icon } from '~/components/icons';
import { dialogElementClass, useModalDialog } from '~/components/ui/dialog-frame';
import { showToast } from '~/components/ui/toast';
import { useDomId } from '~/components/ui/use-dom-id';

export type ViewedImage = { url: string; alt: string; filename: string };

/**
 * The image viewer overlay, opened by the page's script. Without JavaScript the
 * thumbnails are plain links to the image itself, which the browser shows and can save.
 */
export function ImageViewer({ image, onClose }: { image: ViewedImage; onClose: () => void }) {
  const { t } = useTranslation('workspace');
  const titleId = useDomId();
  // Modal on the native <dialog> (focus stays in it, Escape closes, focus returns), as DialogFrame.
  const { ref, dismiss } = useModalDialog(onClose);

  return (
    <dialog ref={ref} open aria-labelledby={titleId} className={dialogElementClass}>
      <div className="flex min-h-full items-center justify-center p-4">
        <div className="fixed inset-0 bg-slate-900/80" aria-hidden="true" onClick={dismiss} />
        <div className="relative flex max-h-full w-full max-w-4xl flex-col gap-3 rounded-2xl bg-white p-4 shadow-xl">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="line-clamp-2 text-base font-semibold text-slate-900">
              {image.alt}
            </h2>
            <button
              data-autofocus
              type="button"
              onClick={onClose}
              className="-m-1 rounded-lg p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              <Icon name="x" />
              <span className="sr-only">{t('results.viewer.close')}</span>
            </button>
          </div>
          <img src={image.url} alt={image.alt} className="max-h-[70vh] w-full rounded-lg bg-slate-100 object-contain" />
          <div className="flex justify-end gap-2">
            <a
              href={image.url}
              download={image.filename}
              onClick={() =>
                showToast({
                  type: 'success',
                  title: t('toasts.downloadComplete'),
                  description: t('toasts.imageSaved', { file: image.filename }),
                })
              }
              className="inline-flex items-center gap-2 rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              {t('results.viewer.download')}
            </a>
          </div>
        </div>
      </div>
    </dialog>
  );
}
