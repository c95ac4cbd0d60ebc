// Toasts raised by the page's own script (outcomes of fetches: titles, CSV, templates). The shared
// Toaster (app/components/ui/toast.tsx) listens for this event; it replaces the current toast.
export type ClientToast = { type: 'success' | 'error' | 'info'; title: string; description?: string };

export const CLIENT_TOAST_EVENT = 'postforge:toast';

export function notify(toast: ClientToast) {
  if (typeof window === 'undefined') return;
  const id = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : String(Date.now() + Math.random());
  window.dispatchEvent(new CustomEvent(CLIENT_TOAST_EVENT, { detail: { id, ...toast } }));
}

/** The error text of a JSON API answer, or the SPEC's "status: text" reading when it has none. */
export async function errorOf(res: Response): Promise<string> {
  try {
    const body = (await res.clone().json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON
  }
  const text = await res.text().catch(() => '');
  return `${res.status}: ${text || res.statusText}`;
}
