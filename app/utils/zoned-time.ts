// Wall-clock times in a user's time zone (the date and time pickers) to instants and back.
// Shared by server and browser; only Intl.

import { dateTimeFormat } from '~/utils/intl-format';
import { DEFAULT_TIME_ZONE, validTimeZone } from '~/utils/time-zone';

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
