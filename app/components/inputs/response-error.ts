// What the input tools (titles, CSV, templates) show when one of their JSON API calls fails. Their
// toasts go through the one emitter, showToast in app/components/ui/toast.tsx.

/** The error text of a JSON API answer, or "status: text" when it has none. */
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
