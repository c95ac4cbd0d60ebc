import type { HistoryRow } from './ledger.server';

// CSV helpers for the user's own history download.

export function csvField(value: string | number | null | undefined): string {
  const s = value === null || value === undefined ? '' : String(value);
  // Quote when needed; a leading =, +, - or @ is prefixed so spreadsheets do not run it as a formula.
  const safe = /^[=+\-@\t\r]/.test(s) && typeof value !== 'number' ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function historyCsvLine(row: HistoryRow, label: (kind: string) => string, bucket: (b: string) => string): string {
  return [row.createdAt.toISOString(), label(row.kind), bucket(row.bucket), row.delta, row.balanceAfter].map(csvField).join(',') + '\r\n';
}
