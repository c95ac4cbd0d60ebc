import { useEffect, useId, useRef, type ReactNode } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([type=hidden]), select, textarea, summary';

/**
 * The one modal dialog of the app: a backdrop, a panel with its title and close control, and the
 * keyboard rules of a modal. Focus moves in (to `[data-autofocus]` when there is one) and stays
 * inside, Escape and a click on the backdrop call `onDismiss`, and focus returns when it closes.
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
  const titleId = useId();
  const descriptionId = useId();
  const panel = useRef<HTMLDivElement>(null);
  // The latest handler, without re-running the effect (which would move focus again) on each render.
  const dismiss = useRef(onDismiss);
  dismiss.current = onDismiss;

  useEffect(() => {
    const el = panel.current;
    if (!el) return;
    const previous = document.activeElement as HTMLElement | null;
    (el.querySelector<HTMLElement>('[data-autofocus]') ?? el.querySelector<HTMLElement>(FOCUSABLE))?.focus();
    const onKey = (event: KeyboardEvent) => {
      // Keys meant for something outside (another layer that has focus) are not ours.
      if (!el.contains(document.activeElement) && document.activeElement !== document.body) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        dismiss.current();
      } else if (event.key === 'Tab') {
        const focusable = [...el.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((n) => n.offsetParent !== null);
        const first = focusable[0];
        const last = focusable[focusable.length - 1];
        if (!first || !last) return;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, []);

  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto p-4 sm:items-center">
      <div className="fixed inset-0 bg-slate-900/50" aria-hidden="true" onClick={() => dismiss.current()} />
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={description ? descriptionId : undefined}
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
  );
}

export const dialogCloseClass =
  '-m-1 rounded-lg p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600';
