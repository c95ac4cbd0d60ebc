import { useLocation } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '~/components/icons';

export type ToastData = { id: string; type: 'success' | 'error' | 'info'; title: string; description?: string };

const TOAST_MS = 5000;
const CLIENT_TOAST_EVENT = 'postforge:toast';

/**
 * Shows a toast from the browser (an outcome only the page's script knows, e.g. a run that ended
 * while polling, a copy to the clipboard). It replaces the current one: at most one at a time.
 */
export function showToast(toast: Omit<ToastData, 'id'>) {
  if (typeof window === 'undefined') return;
  const id = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : String(Date.now() + Math.random());
  window.dispatchEvent(new CustomEvent<ToastData>(CLIENT_TOAST_EVENT, { detail: { id, ...toast } }));
}

const looks = {
  success: { ring: 'ring-emerald-200', icon: 'check', iconColor: 'text-emerald-600' },
  error: { ring: 'ring-red-200', icon: 'alert', iconColor: 'text-red-600' },
  info: { ring: 'ring-indigo-200', icon: 'info', iconColor: 'text-indigo-600' },
} as const;

/**
 * Shows the one pending toast (at most one at a time). It is part of the server-rendered
 * HTML, so it shows without JavaScript; there the close control is a plain link to the same page
 * (the flash cookie is already consumed). With JavaScript it closes itself after 5 s. The live
 * region stays mounted so a toast arriving after a client-side submission is announced.
 */
export function Toaster({ toast: serverToast }: { toast: ToastData | null }) {
  const { t } = useTranslation();
  const location = useLocation();
  const [dismissedId, setDismissedId] = useState<string | null>(null);
  // The latest toast, from the server (the flash cookie after a redirect) or from the page's script.
  const [latest, setLatest] = useState<ToastData | null>(null);
  useEffect(() => {
    const onToast = (event: Event) => setLatest((event as CustomEvent<ToastData>).detail);
    window.addEventListener(CLIENT_TOAST_EVENT, onToast);
    return () => window.removeEventListener(CLIENT_TOAST_EVENT, onToast);
  }, []);
  useEffect(() => {
    if (serverToast) setLatest(serverToast);
    // Only a new server toast takes over; its disappearance (next page) does not hide a client one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [serverToast?.id]);
  const toast = latest ?? serverToast;
  const id = toast?.id ?? null;
  const open = toast !== null && id !== dismissedId;

  useEffect(() => {
    if (!id) return;
    const timer = setTimeout(() => setDismissedId(id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [id]);

  const look = toast ? looks[toast.type] : looks.info;
  return (
    <section
      aria-label={t('toast.region')}
      className="pointer-events-none fixed inset-x-0 bottom-0 z-[60] flex justify-center p-4 sm:justify-end md:max-w-[420px] md:left-auto"
    >
      <div role="status" aria-live="polite" aria-atomic="true" className="w-full">
        {toast && open ? (
          <div className={`pointer-events-auto flex w-full items-start gap-3 rounded-xl bg-white p-4 shadow-lg ring-1 ${look.ring}`}>
            <span className={`mt-0.5 ${look.iconColor}`}>
              <Icon name={look.icon} />
            </span>
            <div className="min-w-0 flex-1">
              <p className="text-sm font-semibold text-slate-900">{toast.title}</p>
              {toast.description ? <p className="mt-1 text-sm text-slate-700">{toast.description}</p> : null}
            </div>
            <a
              href={location.pathname + location.search}
              onClick={(event) => {
                event.preventDefault();
                setDismissedId(toast.id);
              }}
              className="-m-1 rounded-md p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              <Icon name="x" className="size-4" />
              <span className="sr-only">{t('toast.close')}</span>
            </a>
          </div>
        ) : null}
      </div>
    </section>
  );
}
