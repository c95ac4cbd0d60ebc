import { sql, type Db } from '../../db/client';
import { CURRENCY_OF_ROW, type ExportFilter } from './ledger-export.server';

// The admin side of the ledger: how the export form's fields become a filter. The routes read the
// request (app/http/admin.server.ts); this takes plain values and returns a filter or field errors.

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

export type StripeRow = {
  seq: number;
  createdAt: string;
  kind: string;
  userEmail: string;
  credits: number;
  /** The money of this row's own step (a refund's amount, not the running total), minor units. */
  currency: string | null;
  amountMinor: number | null;
  /** The Stripe objects the row came from: checkout session or invoice, payment intent, charge, event. */
  stripeIds: string[];
};

/** The latest ledger rows that carry Stripe money (purchases, Pro grants, refund reversals), newest first. */
export async function recentStripeRows(limit = 20, db: Db = sql): Promise<StripeRow[]> {
  const rows = await db<
    {
      seq: string;
      createdAt: Date;
      kind: string;
      userEmail: string;
      credits: string;
      currency: string | null;
      amountMinor: string | null;
      ids: string[];
    }[]
  >`
    SELECT e.seq, e.created_at AS "createdAt", e.kind, u.email AS "userEmail", e.amount AS credits, ${db.unsafe(CURRENCY_OF_ROW)} AS currency,
      e.amount_minor AS "amountMinor",
      array_remove(ARRAY[e.stripe_checkout_session_id, e.stripe_invoice_id, e.stripe_payment_intent_id, e.stripe_charge_id,
        e.stripe_event_id], NULL) AS ids
    FROM ledger_entries e JOIN users u ON u.id = e.user_id
    WHERE e.amount_minor IS NOT NULL
    ORDER BY e.seq DESC LIMIT ${limit}`;
  return rows.map((r) => ({
    seq: Number(r.seq),
    createdAt: r.createdAt.toISOString(),
    kind: r.kind,
    userEmail: r.userEmail,
    credits: Number(r.credits),
    currency: r.currency,
    amountMinor: r.amountMinor === null ? null : Number(r.amountMinor),
    stripeIds: r.ids,
  }));
}
