import { readCookie } from '~/runtime/cookies.server';
import { TIME_ZONE_COOKIE, validTimeZone } from '~/utils/time-zone';

/** The browser's zone from the `tz` cookie (set by the page's script), or null when absent or not a zone. */
export function browserTimeZone(request: Request): string | null {
  return validTimeZone(readCookie(request.headers.get('Cookie'), TIME_ZONE_COOKIE));
}

/** Whether the request carries the `tz` cookie at all (the page's script ran in this browser). */
export function hasTimeZoneCookie(request: Request): boolean {
  return readCookie(request.headers.get('Cookie'), TIME_ZONE_COOKIE) !== undefined;
}
