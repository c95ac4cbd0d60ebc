import { Link, useNavigate } from '@remix-run/react';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Icon } from '~/components/icons';

/**
 * A dialog whose open state lives in the URL (e.g. `?settings=1`): rendered by the server, so it
 * opens without JavaScript; closing is a link. With JavaScript: focus moves in, Tab stays inside,
 * Escape and a click on the backdrop close it.
 */
export function UrlDialog({
  title,
  closeTo,
  closeLabel,
  children,
}: {
  title: string;
  closeTo: string;
  closeLabel: string;
  children?: ReactNode;
}) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();

  useEffect(() => {
    const el = panel.current;
    if (!el) return;
    const previous = document.activeElement as HTMLElement | null;
    el.querySelector<HTMLElement>('a, button, input, select, textarea')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        navigate(closeTo, { preventScrollReset: true, replace: true });
      } else if (event.key === 'Tab') {
        const focusable = [...el.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input, select, textarea')];
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
  }, [closeTo, navigate]);

  return (
    <div className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto p-4 sm:items-center">
      <div
        className="fixed inset-0 bg-slate-900/50"
        aria-hidden="true"
        onClick={() => navigate(closeTo, { preventScrollReset: true, replace: true })}
      />
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="relative w-full max-w-lg rounded-2xl bg-white p-6 shadow-xl ring-1 ring-slate-900/10"
      >
        <div className="flex items-start justify-between gap-4">
          <h2 id={titleId} className="text-lg font-semibold text-slate-900">
            {title}
          </h2>
          <Link
            to={closeTo}
            replace
            preventScrollReset
            className="-m-1 rounded-lg p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            <Icon name="x" />
            <span className="sr-only">{closeLabel}</span>
          </Link>
        </div>
        {children}
      </div>
    </div>
  );
}
