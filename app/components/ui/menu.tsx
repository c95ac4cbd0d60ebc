import { useLocation } from '@remix-run/react';
import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A disclosure menu on <details>/<summary>: opens with a click or Enter/Space without JavaScript.
 * With JavaScript it also closes on Escape, on an outside click and after navigation.
 */
export function DetailsMenu({
  summary,
  summaryClassName = '',
  panelClassName = '',
  className = '',
  children,
}: {
  summary: ReactNode;
  summaryClassName?: string;
  panelClassName?: string;
  className?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  const location = useLocation();

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onPointer = (event: MouseEvent) => {
      if (el.open && !el.contains(event.target as Node)) el.open = false;
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && el.open) {
        el.open = false;
        el.querySelector('summary')?.focus();
      }
    };
    document.addEventListener('click', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('click', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  useEffect(() => {
    if (ref.current) ref.current.open = false;
  }, [location.key]);

  return (
    <details ref={ref} className={`relative ${className}`}>
      <summary
        className={`flex cursor-pointer list-none items-center rounded-lg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden ${summaryClassName}`}
      >
        {summary}
      </summary>
      <div className={`absolute right-0 z-50 mt-2 rounded-xl bg-white p-1.5 shadow-lg ring-1 ring-slate-900/10 ${panelClassName}`}>
        {children}
      </div>
    </details>
  );
}

/** Shared look of the entries inside a DetailsMenu (links and form buttons). */
export const menuItemClass =
  'flex w-full items-center gap-2 rounded-lg px-3 py-2 text-left text-sm text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600';
