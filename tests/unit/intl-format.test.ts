/**
 * The cached Intl formatters (a page of results built a formatter per date) format exactly
 * as `toLocaleString` and friends do, in our languages and in zones either side of UTC, and are built
 * once per locale and options.
 */
import { describe, expect, it } from 'vitest';
import { dateTimeFormat, numberFormat } from '~/utils/intl-format';
import { formatDate, formatDateTime, formatDateTimeInZone, formatTime, validTimeZone } from '~/utils/time-zone';

const instants = ['2026-03-05T17:04:00Z', '2026-11-01T00:30:00Z', '2026-06-30T23:59:59Z'];
const languages = ['en', 'zh-HK'];
const zones = ['UTC', 'Asia/Hong_Kong', 'America/New_York', 'Pacific/Chatham'];

describe('cached Intl formatters', () => {
  it('format as toLocaleString does', () => {
    for (const iso of instants) {
      const d = new Date(iso);
      for (const language of languages) {
        for (const timeZone of zones) {
          expect(formatDateTime(iso, language, timeZone)).toBe(
            d.toLocaleString(language, { timeZone, dateStyle: 'medium', timeStyle: 'short' }),
          );
          expect(formatDate(iso, language, timeZone)).toBe(d.toLocaleDateString(language, { dateStyle: 'medium', timeZone }));
          expect(formatTime(iso, language, timeZone)).toBe(
            d.toLocaleTimeString(language, { timeStyle: 'short', timeZone }) + (timeZone === 'UTC' ? ' UTC' : ''),
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
});
