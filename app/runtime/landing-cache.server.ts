import { languageCookieName, type Language } from '~/i18n';
import { catalogueVersion, languageFromHeaders } from '~/i18n.server';
import { readCookies } from '~/runtime/cookies.server';
import { singleton } from '~/runtime/singleton.server';
import { THEME_COOKIE, themeFromCookieHeader } from '~/runtime/theme.server';
import { DEFAULT_TIME_ZONE, TIME_ZONE_COOKIE, validTimeZone } from '~/utils/time-zone';

// The anonymous landing page is the same for everyone who shares its language, time zone and theme
// (not rendered from scratch on every request). entry.server stores a rendered page under
// the key of the root data it was rendered from; server.ts answers a request whose own key is
// stored before Remix runs (matching, loaders), with the request's CSP nonce put back in. Both keys
// come from `landingKey`, so a page is only ever served for the inputs it was rendered from.

const TTL_MS = 5 * 60 * 1000;
const MAX_ENTRIES = 64;

export type LandingInputs = { language: Language; timeZone: string; theme: string };
type Entry = { at: number; headers: [string, string][]; parts: Buffer[] };

const cache = () => singleton('landing-cache', () => new Map<string, Entry>());

/** The one key of a landing page: what the anonymous root data holds (the catalogue version follows the language). */
export function landingKey({ language, timeZone, theme }: LandingInputs): string {
  return [language, catalogueVersion(language), timeZone, theme].join('\n');
}

/** Cookies that only choose among cached variants; any other (a session, a toast) makes the page personal. */
const VARIANT_COOKIES = new Set([languageCookieName, TIME_ZONE_COOKIE, THEME_COOKIE]);

/**
 * The key a request for `/` would be rendered under, worked out as the root loader does; null when
 * the request may not share a page: another method, a query, or a cookie that is not a variant.
 */
export function landingRequestKey(
  method: string,
  url: string,
  cookie: string | undefined,
  acceptLanguage: string | undefined,
): string | null {
  if (method !== 'GET' || url !== '/') return null;
  const cookies = readCookies(cookie);
  for (const name of Object.keys(cookies)) if (!VARIANT_COOKIES.has(name)) return null;
  return landingKey({
    language: languageFromHeaders(cookie, acceptLanguage),
    timeZone: validTimeZone(cookies[TIME_ZONE_COOKIE]) ?? DEFAULT_TIME_ZONE,
    theme: themeFromCookieHeader(cookie) ?? 'light',
  });
}

/** The cached page for key with nonce in place, and the headers it was answered with; null on a miss. */
export function cachedLanding(key: string, nonce: string): { headers: [string, string][]; body: Buffer } | null {
  const hit = cache().get(key);
  if (!hit) return null;
  if (Date.now() - hit.at >= TTL_MS) {
    cache().delete(key);
    return null;
  }
  const fresh = Buffer.from(nonce);
  return { headers: hit.headers, body: Buffer.concat(hit.parts.flatMap((part, i) => (i ? [fresh, part] : [part]))) };
}

/** Keeps a rendered page (its nonce cut out) under key, the oldest entry making room. */
export function storeLanding(key: string, body: Buffer, nonce: string, headers: Headers): void {
  const entries = cache();
  if (!entries.has(key) && entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(key, { at: Date.now(), headers: [...headers.entries()], parts: splitAround(body, Buffer.from(nonce)) });
}

/** The pieces of body between occurrences of separator (the nonce). */
function splitAround(body: Buffer, separator: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(separator); at !== -1; at = body.indexOf(separator, from)) {
    parts.push(body.subarray(from, at));
    from = at + separator.length;
  }
  parts.push(body.subarray(from));
  return parts;
}
