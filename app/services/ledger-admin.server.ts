import { sql } from '../../db/client';
import { getUser, type SessionUser } from './sessions.server';
import type { ExportFilter } from './ledger-export.server';

// The admin side of the ledger: who may see it and how the export form's fields are read.

/** The signed-in admin, or a 404 (the page does not exist for anyone else). */
export async function requireAdmin(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user || user.role !== 'admin') throw new Response('Not Found', { status: 404 });
  return user;
}

export type ExportForm = { from: string; to: string; user: string; until: string };
export type ParsedExport = { filter: ExportFilter; errors: Partial<Record<'from' | 'to' | 'user', 'invalidDate' | 'unknownUser'>> };

const DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/;

/** Reads from/to (dates, UTC), user (e-mail) and until (a sequence number that pins the rows). */
export async function parseExportForm(params: URLSearchParams): Promise<ParsedExport> {
  const errors: ParsedExport['errors'] = {};
  const filter: ExportFilter = {};
  for (const name of ['from', 'to'] as const) {
    const raw = params.get(name)?.trim();
    if (!raw) continue;
    const date = DATE.test(raw) ? new Date(raw.length === 10 ? `${raw}T00:00:00Z` : raw) : new Date(NaN);
    if (Number.isNaN(date.getTime())) errors[name] = 'invalidDate';
    else filter[name] = date;
  }
  const email = params.get('user')?.trim();
  if (email) {
    const [row] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
    if (row) filter.userId = row.id;
    else errors.user = 'unknownUser';
  }
  const until = Number(params.get('until'));
  if (params.get('until') && Number.isSafeInteger(until) && until >= 0) filter.untilSeq = until;
  return { filter, errors };
}
