import { useEffect, useRef, type ReactNode } from 'react';
import { useDomId } from '~/components/ui/use-dom-id';

/**
 * The modal behaviour of our dialogs, on the native `<dialog>`: the element is rendered `open`, so
 * the server's HTML shows it without JavaScript (a non-modal dialog with our own backdrop); once the
 * script runs, `showModal()` reopens it in the top layer, where the browser makes the page behind
 * inert (focus cannot reach it) and turns Escape into a `cancel` event, which calls `onDismiss`.
 * Focus moves in (to `[data-autofocus]` when there is one) and returns where it was when it closes.
 */
export function useModalDialog(onDismiss: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  // The latest handler, without re-running the effect (which would move focus again) on each render.
  const dismiss = useRef(onDismiss);
  dismiss.current = onDismiss;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement as HTMLElement | null;
    if (dialog.open) dialog.close();
    dialog.showModal();
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    const onCancel = (event: Event) => {
      // The caller owns the open state (component state or the URL): it closes the dialog.
      event.preventDefault();
      dismiss.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      previous?.focus?.();
    };
  }, []);

  return { ref, dismiss: () => dismiss.current() };
}

/** The `<dialog>` element's own look: the whole viewport, transparent; the backdrop and the panel are inside. */
export const dialogElementClass =
  'fixed inset-0 z-50 m-0 size-full max-h-none max-w-none overflow-y-auto bg-transparent p-0 text-inherit backdrop:bg-transparent';

/**
 * The one modal dialog of the app: a backdrop, a panel with its title and close control, and the
 * keyboard rules of a modal (useModalDialog). Escape and a click on the backdrop call `onDismiss`.
 * Where the open state lives (component state or the URL) is the caller's business.
 */
export function DialogFrame({
  title,
  description,
  badge,
  size = 'lg',
  closeControl,
  onDismiss,
  children,
}: {
  title: string;
  description?: string;
  badge?: ReactNode;
  size?: 'sm' | 'lg';
  /** The close button or link, styled by the caller with `dialogCloseClass`. */
  closeControl: ReactNode;
  onDismiss: () => void;
  children?: ReactNode;
}) {
  const titleId = useDomId();
  const descriptionId = useDomId();
  const { ref, dismiss } = useModalDialog(onDismiss);

  return (
    <dialog
      ref={ref}
      open
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      className={dialogElementClass}
    >
      <div className="flex min-h-full items-start justify-center p-4 sm:items-center">
        <div className="fixed inset-0 bg-slate-900/50" aria-hidden="true" onClick={dismiss} />
        <div
          className={`relative w-full ${size === 'sm' ? 'max-w-sm' : 'max-w-lg'} rounded-2xl bg-white p-6 shadow-xl ring-1 ring-slate-900/10`}
        >
          <div className="flex items-start justify-between gap-4">
            <div>
              <div className="flex items-center gap-2">
                <h2 id={titleId} className="text-lg font-semibold text-slate-900">
                  {title}
                </h2>
                {badge}
              </div>
              {description ? (
                <p id={descriptionId} className="mt-1 text-sm text-slate-600">
                  {description}
                </p>
              ) : null}
            </div>
            {closeControl}
          </div>
          {children}
        </div>
      </div>
    </dialog>
  );
}

export const dialogCloseClass =
  '-m-1 rounded-lg p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600';
