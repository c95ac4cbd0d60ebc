// A redirect target must stay on this site: a relative path, never `//host` or `/\host`.
const BASE = 'http://same-site.invalid';

/** The path (with query and hash) of a same-site target, '/' when none was given, null when unsafe. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/'): string | null {
  if (to === null || to === undefined || to === '') return fallback;
  if (typeof to !== 'string' || to.length > 2048) return null;
  if (!to.startsWith('/') || to.startsWith('//') || to.startsWith('/\\')) return null;
  let url: URL;
  try {
    url = new URL(to, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE) return null;
  return url.pathname + url.search + url.hash;
}
