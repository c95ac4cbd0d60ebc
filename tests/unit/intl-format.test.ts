/**
 * The cached Intl formatters (a page of results built a formatter per date) format exactly
 * as `toLocaleString` and friends do, in our languages and in zones either side of UTC, and are built
 * once per locale and options.
 */
import { describe, expect, it } from 'vitest';
import { dateTimeFormat, numberFormat } from '~/utils/intl-format';
import {
  formatDate,
  formatDateTime,
  formatDateTimeInZone,
  formatTime,
  settableTimeZone,
  supportedTimeZones,
  validTimeZone,
} from '~/utils/time-zone';
import { parseInstant, timeZoneLabel } from '~/utils/zoned-time';

const instants = ['2026-03-05T17:04:00Z', '2026-11-01T00:30:00Z', '2026-06-30T23:59:59Z'];
const languages = ['en', 'zh-HK'];
const zones = ['UTC', 'Asia/Hong_Kong', 'America/New_York', 'Pacific/Chatham'];

describe('cached Intl formatters', () => {
  it('format as toLocaleString does', () => {
    for (const iso of instants) {
      const d = new Date(iso);
      for (const language of languages) {
        for (const timeZone of zones) {
          // A date and time, or a time alone, always names its zone.
          expect(formatDateTime(iso, language, timeZone)).toBe(formatDateTimeInZone(iso, language, timeZone));
          expect(formatDate(iso, language, timeZone)).toBe(d.toLocaleDateString(language, { dateStyle: 'medium', timeZone }));
          expect(formatTime(iso, language, timeZone)).toBe(
            d.toLocaleTimeString(language, { hour: 'numeric', minute: '2-digit', timeZone, timeZoneName: 'short' }),
          );
          expect(formatDateTimeInZone(iso, language, timeZone)).toBe(
            d.toLocaleString(language, {
              timeZone,
              year: 'numeric',
              month: 'short',
              day: 'numeric',
              hour: 'numeric',
              minute: '2-digit',
              timeZoneName: 'short',
            }),
          );
          const short = { month: 'short', day: 'numeric', timeZone } as const;
          expect(dateTimeFormat(language, short).format(d)).toBe(d.toLocaleDateString(language, short));
        }
        const money = { style: 'currency', currency: 'USD', maximumFractionDigits: 0 } as const;
        expect(numberFormat(language, money).format(1234)).toBe((1234).toLocaleString(language, money));
      }
    }
  });

  it('builds one formatter per locale and options', () => {
    const options = { dateStyle: 'medium', timeZone: 'Asia/Hong_Kong' } as const;
    expect(dateTimeFormat('zh-HK', options)).toBe(dateTimeFormat('zh-HK', { ...options }));
    expect(dateTimeFormat('zh-HK', options)).not.toBe(dateTimeFormat('en', options));
    expect(numberFormat('en')).toBe(numberFormat('en', {}));
  });

  it('still tells a known time zone from an unknown one', () => {
    expect(validTimeZone('Asia/Hong_Kong')).toBe('Asia/Hong_Kong');
    expect(validTimeZone('Asia/Hong_Kong')).toBe('Asia/Hong_Kong');
    expect(validTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(validTimeZone('Mars/Olympus_Mons')).toBeNull();
  });

  it("a user's zone is one this runtime lists, in its spelling; a fixed offset or a made-up name is not", () => {
    expect(supportedTimeZones()[0]).toBe('UTC');
    expect(supportedTimeZones()).toContain('Asia/Hong_Kong');
    expect(settableTimeZone('Asia/Hong_Kong')).toBe('Asia/Hong_Kong');
    expect(settableTimeZone('US/Eastern')).toBe('America/New_York');
    expect(settableTimeZone('Etc/UTC')).toBe('UTC');
    expect(supportedTimeZones()).toContain(settableTimeZone('Asia/Kolkata'));
    expect(settableTimeZone('Etc/GMT+5')).toBeNull();
    expect(settableTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(settableTimeZone('')).toBeNull();
  });
});

describe('dates and times the API and the pickers take', () => {
  it('a time without an offset is in the zone given, across daylight saving; one with an offset is that instant', () => {
    expect(parseInstant('2031-01-15T10:00', 'Asia/Hong_Kong')?.toISOString()).toBe('2031-01-15T02:00:00.000Z');
    expect(parseInstant('2031-01-15 10:00:30', 'Asia/Hong_Kong')?.toISOString()).toBe('2031-01-15T02:00:30.000Z');
    expect(parseInstant('2031-07-15T10:00:00.250', 'America/New_York')?.toISOString()).toBe('2031-07-15T14:00:00.250Z');
    expect(parseInstant('2031-01-15T10:00', 'America/New_York')?.toISOString()).toBe('2031-01-15T15:00:00.000Z');
    expect(parseInstant('2031-01-15', 'Asia/Hong_Kong')?.toISOString()).toBe('2031-01-14T16:00:00.000Z');
    expect(parseInstant('2031-01-15T10:00:00Z', 'Asia/Hong_Kong')?.toISOString()).toBe('2031-01-15T10:00:00.000Z');
    expect(parseInstant('2031-01-15T10:00:00-05:00', 'Asia/Hong_Kong')?.toISOString()).toBe('2031-01-15T15:00:00.000Z');
    expect(parseInstant('tomorrow', 'Asia/Hong_Kong')).toBeNull();
    expect(timeZoneLabel('Asia/Kathmandu', new Date('2031-01-15T00:00:00Z'))).toBe('Asia/Kathmandu (GMT+05:45)');
    expect(timeZoneLabel('America/New_York', new Date('2031-07-15T00:00:00Z'))).toBe('America/New York (GMT-04:00)');
  });
});
