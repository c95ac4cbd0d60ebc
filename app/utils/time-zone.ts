import { useRouteLoaderData } from '@remix-run/react';
import { dateTimeFormat, namedDateTimeFormat } from '~/utils/intl-format';

// Times are shown, and the dates and times a user picks are read, in the user's time zone: a
// setting kept on the account. A small inline script in the document keeps the browser's zone in the
// `tz` cookie; the server takes it as the setting of a user who has none yet, and as the zone of a
// visitor who is not signed in. UTC, named as such, until a zone is known.
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

let supported: string[] | undefined;
let supportedSet: Set<string> | undefined;

/** The zones a user may choose: UTC and every IANA zone this runtime lists (Intl.supportedValuesOf). */
export function supportedTimeZones(): string[] {
  supported ??= [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone').filter((z) => z !== DEFAULT_TIME_ZONE)];
  return supported;
}

/**
 * The zone as a user's setting: one of supportedTimeZones() in this runtime's spelling (a browser may
 * say Asia/Kolkata where the list says Asia/Calcutta, or US/Eastern for America/New_York), else null.
 * Fixed-offset zones such as Etc/GMT+5 are not offered: they ignore daylight saving.
 */
export function settableTimeZone(value: string | null | undefined): string | null {
  const zone = validTimeZone(value);
  if (!zone) return null;
  supportedSet ??= new Set(supportedTimeZones());
  return supportedSet.has(zone) ? zone : null;
}

/** The reader's time zone from the root loader (identical in the server render and at hydration). */
export function useTimeZone(): string {
  const data = useRouteLoaderData('root') as { timeZone?: string } | undefined;
  return data?.timeZone ?? DEFAULT_TIME_ZONE;
}

/**
 * The inline script (run before anything else) that writes the browser's zone into the cookie when
 * it is missing or stale, so the server learns it (a signed-in user without a zone takes it as theirs).
 */
export const timeZoneScript =
  `(function(){try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone;var c='${TIME_ZONE_COOKIE}='+encodeURIComponent(z);` +
  `if(z&&(';'+document.cookie.replace(/ /g,'')+';').indexOf(';'+c+';')<0)document.cookie=c+';path=/;max-age=31536000;samesite=lax'}catch(e){}})();`;

/** "Nov 23, 2026" in the zone (a day, so no zone name). */
export function formatDate(iso: string | Date, language: string, timeZone: string): string {
  return dateTimeFormat(language, { dateStyle: 'medium', timeZone }).format(new Date(iso));
}

/** "8:01 AM GMT+8": a time of day in the zone, with the zone's short name (never passing for another zone's time). */
export function formatTime(iso: string | Date, language: string, timeZone: string): string {
  return dateTimeFormat(language, { timeZone, hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(new Date(iso));
}

const DATE_TIME_IN_ZONE: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
};

/** "Nov 23, 2026, 8:01 AM GMT+8": a date and time that names its zone (a list's every row shows one). */
export function formatDateTimeInZone(iso: string | Date, language: string, timeZone: string): string {
  return namedDateTimeFormat('date-time-in-zone', language, timeZone, DATE_TIME_IN_ZONE).format(new Date(iso));
}

/** The same as formatDateTimeInZone: every date and time the pages show names its zone. */
export const formatDateTime = formatDateTimeInZone;
