// Wall-clock times in a user's time zone (the date and time pickers) to instants and back.
// Shared by server and browser; only Intl.

import { dateTimeFormat } from '~/utils/intl-format';
import { DEFAULT_TIME_ZONE, supportedTimeZones, validTimeZone } from '~/utils/time-zone';

const validZone = (tz: string | null | undefined): string => validTimeZone(tz) ?? DEFAULT_TIME_ZONE;

/** The zone's offset from UTC, in minutes, at this instant. */
export function offsetMinutes(instant: Date, tz: string): number {
  const parts = Object.fromEntries(
    dateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** `2026-11-24` + `09:30` in `Asia/Hong_Kong` → the instant. Null when the input is not a date/time. */
export function zonedToInstant(date: string, time: string, tz: string | null | undefined): Date | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date.trim());
  const t = /^(\d{2}):(\d{2})$/.exec(time.trim());
  if (!d || !t) return null;
  const zone = validZone(tz);
  const wall = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]));
  if (Number.isNaN(wall)) return null;
  // Two passes settle the offset around daylight-saving changes.
  let guess = wall - offsetMinutes(new Date(wall), zone) * 60_000;
  guess = wall - offsetMinutes(new Date(guess), zone) * 60_000;
  return new Date(guess);
}

/** The instant as { date: 'YYYY-MM-DD', time: 'HH:mm' } in the zone. */
export function instantToZoned(instant: Date, tz: string | null | undefined): { date: string; time: string } {
  const zone = validZone(tz);
  const parts = Object.fromEntries(
    dateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/**
 * An API's date and time: an ISO date and time without an offset (`2031-01-15T10:00`,
 * `2031-01-15 10:00:30`, `2031-01-15`) is a wall-clock time in `tz`; anything else names its instant
 * (`2031-01-15T02:00:00Z`, `…+08:00`) and is read as JavaScript reads it. Null when it is no date.
 */
export function parseInstant(value: string, tz: string | null | undefined): Date | null {
  const naive = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(\.\d{1,3})?)?)?$/.exec(value.trim());
  if (naive) {
    const at = zonedToInstant(naive[1]!, naive[2] ?? '00:00', tz);
    return at && new Date(at.getTime() + Number(naive[3] ?? 0) * 1000 + Math.round(Number(naive[4] ?? 0) * 1000));
  }
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** A zone as a picker names it, with its offset at `at`: "Asia/Hong Kong (GMT+08:00)". */
export function timeZoneLabel(tz: string, at: Date): string {
  const offset = offsetMinutes(at, tz);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${tz.replaceAll('_', ' ')} (GMT${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')})`;
}

/** Every zone a user may choose, as the settings picker lists them (offsets at `at`). */
export function timeZoneChoices(at: Date): { value: string; label: string }[] {
  return supportedTimeZones().map((tz) => ({ value: tz, label: timeZoneLabel(tz, at) }));
}
