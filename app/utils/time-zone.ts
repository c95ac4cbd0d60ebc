import { useRouteLoaderData } from '@remix-run/react';
import { dateTimeFormat } from '~/utils/intl-format';

// Times are shown in the reader's time zone. The browser names it (Intl), a small inline script in
// the document keeps it in the `tz` cookie, and the server renders with it; UTC until known.
export const TIME_ZONE_COOKIE = 'tz';
export const DEFAULT_TIME_ZONE = 'UTC';

/** The IANA zone if this runtime knows it (cookie values are untrusted), else null. */
export function validTimeZone(value: string | null | undefined): string | null {
  if (!value || value.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(value)) return null;
  try {
    // Cached per zone (a request reads its cookie's zone): an unknown zone throws and is not kept.
    return dateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The reader's time zone from the root loader (identical in the server render and at hydration). */
export function useTimeZone(): string {
  const data = useRouteLoaderData('root') as { timeZone?: string } | undefined;
  return data?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * The inline script (run before anything else) that writes the browser's zone into the cookie when
 * it is missing or stale, so the next request renders in it.
 */
export const timeZoneScript =
  `(function(){try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone;var c='${TIME_ZONE_COOKIE}='+encodeURIComponent(z);` +
  `if(z&&(';'+document.cookie.replace(/ /g,'')+';').indexOf(';'+c+';')<0)document.cookie=c+';path=/;max-age=31536000;samesite=lax'}catch(e){}})();`;

/** "Nov 23, 2026, 8:01 AM" in the zone. */
export function formatDateTime(iso: string | Date, language: string, timeZone: string): string {
  return dateTimeFormat(language, { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/** "Nov 23, 2026" in the zone. */
export function formatDate(iso: string | Date, language: string, timeZone: string): string {
  return dateTimeFormat(language, { dateStyle: 'medium', timeZone }).format(new Date(iso));
}

/** "8:01 AM" in the zone, with the zone's short name when it is UTC (so it never passes for local time). */
export function formatTime(iso: string | Date, language: string, timeZone: string): string {
  return dateTimeFormat(language, { timeStyle: 'short', timeZone }).format(new Date(iso)) + (timeZone === 'UTC' ? ' UTC' : '');
}

/** "Nov 23, 2026, 8:01 AM GMT+8": a date and time that names its zone (scheduled publishing). */
export function formatDateTimeInZone(iso: string | Date, language: string, timeZone: string): string {
  return dateTimeFormat(language, {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));
}
