import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Icon } from '~/components/icons';

/**
 * A modal dialog held in component state (for dialogs opened by the page's script; their no-JavaScript
 * form is a page). Focus moves in and stays inside, Escape and the backdrop close it, focus returns.
 */
export function Modal({
  title,
  description,
  onClose,
  closeLabel,
  children,
  size = 'lg',
  badge,
}: {
  title: string;
  description?: string;
  onClose: () => void;
  closeLabel: string;
  children: ReactNode;
  size?: 'sm' | 'lg';
  badge?: ReactNode;
}) {
  const titleId = useId();
  const descriptionId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const el = panel.current;
    if (!el) return;
    const previous = document.activeElement as HTMLElement | null;
    (
      el.querySelector<HTMLElement>('[data-autofocus]') ??
      el.querySelector<HTMLElement>('a[href], button:not([disabled]), input, select, textarea')
    )?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (!el.contains(document.activeElement) && document.activeElement !== document.body) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        close.current();
      } else if (event.key === 'Tab') {
        const focusable = [
          ...el.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([type=hidden]), select, textarea, summary'),
        ].filter((n) => n.offsetParent !== null);
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
    el.addEventListener('keydown', onKey);
    return () => {
      el.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, []);

  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto p-4 sm:items-center">
      <div className="fixed inset-0 bg-slate-900/50" aria-hidden="true" onClick={() => onClose()} />
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
          <button
            type="button"
            onClick={() => onClose()}
            className="-m-1 rounded-lg p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            <Icon name="x" />
            <span className="sr-only">{closeLabel}</span>
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
