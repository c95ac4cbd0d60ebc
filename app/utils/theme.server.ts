// Dark mode on the server's first paint (no flash): the user's setting is mirrored in a plain cookie
// that the root loader reads without a database query.
export const THEME_COOKIE = 'theme';

export function themeCookieHeader(dark: boolean): string {
  return `${THEME_COOKIE}=${dark ? 'dark' : 'light'}; Path=/; Max-Age=${60 * 60 * 24 * 365}; SameSite=Lax`;
}

/** 'dark', 'light', or null when the cookie is missing. */
export function themeFromCookie(request: Request): 'dark' | 'light' | null {
  const header = request.headers.get('Cookie') ?? '';
  const match = /(?:^|;\s*)theme=(dark|light)(?:;|$)/.exec(header);
  return (match?.[1] as 'dark' | 'light' | undefined) ?? null;
}
