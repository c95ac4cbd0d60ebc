// A redirect target must stay on this site. The input is first normalised the way a browser will
// read it (dot segments, %2e, backslashes, stripped tabs and newlines all resolved by the WHATWG URL
// parser), THEN checked: the normalised path must not start with `//` or `/\` (a scheme-relative
// URL to another host) and must read back to itself.
const BASE = 'http://same-site.invalid';

/** The path (with query and hash) of a same-site target, fallback when none was given, null when unsafe. */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = '/'): string | null {
  if (to === null || to === undefined || to === '') return fallback;
  if (typeof to !== 'string' || to.length > 2048) return null;
  // Control characters are never part of a link we make; browsers strip some of them silently.
  // eslint-disable-next-line no-control-regex
  if (!to.startsWith('/') || /[\u0000-\u001f\u007f]/.test(to)) return null;
  const normalised = normalise(to);
  if (normalised === null || isSchemeRelative(normalised)) return null;
  // Idempotent: what the browser will resolve the answer to is the answer itself.
  return normalise(normalised) === normalised ? normalised : null;
}

function normalise(to: string): string | null {
  let url: URL;
  try {
    url = new URL(to, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE) return null;
  return url.pathname + url.search + url.hash;
}

const isSchemeRelative = (path: string) => /^[/\\]{2}/.test(path) || /^\/%(?:2f|5c)/i.test(path);
