import { readCookie } from '~/runtime/cookies.server';

// Dark mode on the server's first paint (no flash): the user's setting is mirrored in a plain cookie
// that the root loader reads without a database query.
export const THEME_COOKIE = 'theme';

export function themeCookieHeader(dark: boolean): string {
  return `${THEME_COOKIE}=${dark ? 'dark' : 'light'}; Path=/; Max-Age=${60 * 60 * 24 * 365}; SameSite=Lax`;
}

/** 'dark', 'light', or null when the cookie is missing (or holds anything else). */
export function themeFromCookieHeader(header: string | null | undefined): 'dark' | 'light' | null {
  const value = readCookie(header, THEME_COOKIE);
  return value === 'dark' || value === 'light' ? value : null;
}

export function themeFromCookie(request: Request): 'dark' | 'light' | null {
  return themeFromCookieHeader(request.headers.get('Cookie'));
}
