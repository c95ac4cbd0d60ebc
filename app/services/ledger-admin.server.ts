import { sql, type Db } from '../../db/client';
import type { ExportFilter } from './ledger-export.server';

// The admin side of the ledger: how the export form's fields become a filter. The routes read the
// request (app/utils/admin.server.ts); this takes plain values and returns a filter or field errors.

export type ExportForm = { from?: string | null; to?: string | null; user?: string | null; until?: string | null };
export type ExportFieldError = 'invalidDate' | 'unknownUser';
export type ParsedExport = { filter: ExportFilter; errors: Partial<Record<'from' | 'to' | 'user', ExportFieldError>> };

const DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;

/** Reads from/to (dates, UTC), user (e-mail) and until (a sequence number that pins the rows). */
export async function parseExportForm(form: ExportForm, db: Db = sql): Promise<ParsedExport> {
  const errors: ParsedExport['errors'] = {};
  const filter: ExportFilter = {};
  for (const name of ['from', 'to'] as const) {
    const raw = form[name]?.trim();
    if (!raw) continue;
    const date = DATE.test(raw) ? new Date(raw.length === 10 ? `${raw}T00:00:00Z` : raw) : new Date(NaN);
    if (Number.isNaN(date.getTime())) errors[name] = 'invalidDate';
    else filter[name] = date;
  }
  const email = form.user?.trim();
  if (email) {
    const [row] = await db<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
    if (row) filter.userId = row.id;
    else errors.user = 'unknownUser';
  }
  const until = Number(form.until);
  if (form.until && Number.isSafeInteger(until) && until >= 0) filter.untilSeq = until;
  return { filter, errors };
}
