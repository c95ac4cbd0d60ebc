import { readCookie } from '~/runtime/cookies.server';
import { DEFAULT_TIME_ZONE, TIME_ZONE_COOKIE, validTimeZone } from '~/utils/time-zone';

/** The reader's time zone from the `tz` cookie (set by the browser), UTC until known or when invalid. */
export function requestTimeZone(request: Request): string {
  return validTimeZone(readCookie(request.headers.get('Cookie'), TIME_ZONE_COOKIE)) ?? DEFAULT_TIME_ZONE;
}
