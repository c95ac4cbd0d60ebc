import { describe, expect, it } from 'vitest';
import { csvField, historyCsvLine } from '../../app/services/ledger-csv.server';

describe('ledger CSV fields', () => {
  it('quotes commas, quotes and newlines', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
  });

  it('keeps spreadsheet formulas from running but leaves negative numbers alone', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField(-5)).toBe('-5');
  });

  it('writes one history row with translated labels', () => {
    const line = historyCsvLine(
      {
        seq: 1,
        createdAt: new Date('2026-01-02T03:04:05.000Z'),
        kind: 'monthly_grant',
        delta: 5,
        amount: 5,
        balanceAfter: 5,
        bucket: 'monthly',
        reason: null,
      },
      (k) => (k === 'monthly_grant' ? '已發放每月點數' : k),
      (b) => (b === 'monthly' ? '每月' : b),
    );
    expect(line).toBe('2026-01-02T03:04:05.000Z,已發放每月點數,每月,5,5\r\n');
  });
});
