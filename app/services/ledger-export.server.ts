import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from '../../db/client';
import type { Db } from './ledger.server';

// Finance's export: CSV streamed by Postgres itself (COPY … TO STDOUT), so memory stays flat
// whatever the size, plus a manifest (row count, sums per kind, last hash) taken from the same
// snapshot. COPY takes no bind parameters: the filters are validated and inlined as literals.

export type ExportFilter = { from?: Date; to?: Date; userId?: string; untilSeq?: number };
export type ExportManifest = {
  rows: number;
  sumsByKind: Record<string, number>;
  firstSeq: number | null;
  lastSeq: number | null;
  lastHash: string | null;
  filter: { from: string | null; to: string | null; userId: string | null; untilSeq: number | null };
  exportedAt: string;
};

export const EXPORT_COLUMNS = [
  'seq',
  'id',
  'time',
  'user_id',
  'user_email',
  'kind',
  'from_account',
  'to_account',
  'amount',
  'balance_after',
  'pending_seq',
  'external_ref',
  'idempotency_key',
  'hash',
  // Rows booked from Stripe (after the hash, so readers of the older 14 columns keep working):
  // the money of the row's own step in minor units with its ISO currency (a purchase: what was
  // paid; a reversal: that refund's amount, never Stripe's running total), and the Stripe objects
  // the row came from.
  'currency',
  'amount_minor',
  'stripe_event_id',
  'stripe_checkout_session_id',
  'stripe_invoice_id',
  'stripe_payment_intent_id',
  'stripe_charge_id',
  // Last, so readers of the columns before keep working: the refund object (`re_…`) a reversal books.
  'stripe_refund_id',
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function whereClause(f: ExportFilter): string {
  const parts: string[] = ['true'];
  if (f.from) {
    if (Number.isNaN(f.from.getTime())) throw new Error('Invalid --from date');
    parts.push(`e.created_at >= '${f.from.toISOString()}'::timestamptz`);
  }
  if (f.to) {
    if (Number.isNaN(f.to.getTime())) throw new Error('Invalid --to date');
    parts.push(`e.created_at < '${f.to.toISOString()}'::timestamptz`);
  }
  if (f.userId) {
    if (!UUID.test(f.userId)) throw new Error('Invalid user id');
    parts.push(`e.user_id = '${f.userId}'::uuid`);
  }
  if (f.untilSeq !== undefined) {
    if (!Number.isSafeInteger(f.untilSeq)) throw new Error('Invalid sequence number');
    parts.push(`e.seq <= ${f.untilSeq}`);
  }
  return parts.join(' AND ');
}

/**
 * A row's currency: its own, or for a refund reversal that named none, its payment's (the same
 * charge or payment intent), so every row with an amount_minor says what money it is in.
 */
export const CURRENCY_OF_ROW = `coalesce(e.currency, CASE WHEN e.kind IN ('topup_reversal', 'grant_reversal') AND e.amount_minor IS NOT NULL THEN (
    SELECT p.currency FROM ledger_entries p
    WHERE p.user_id = e.user_id AND p.kind IN ('topup_purchase', 'monthly_grant') AND p.currency IS NOT NULL
      AND (p.stripe_charge_id = e.stripe_charge_id OR p.stripe_payment_intent_id = e.stripe_payment_intent_id
        OR p.stripe_checkout_session_id = e.stripe_checkout_session_id OR p.stripe_invoice_id = e.stripe_invoice_id)
    ORDER BY p.seq LIMIT 1) END)`;

function copyStatement(f: ExportFilter): string {
  return `COPY (
    SELECT e.seq, e.id, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), e.user_id, u.email, e.kind,
           CASE WHEN fa.user_id IS NULL THEN 'system:' ELSE 'user:' END || fa.code,
           CASE WHEN ta.user_id IS NULL THEN 'system:' ELSE 'user:' END || ta.code,
           e.amount, e.balance_after, e.pending_seq, e.external_ref, e.idempotency_key, encode(e.hash, 'hex'),
           ${CURRENCY_OF_ROW}, e.amount_minor, e.stripe_event_id, e.stripe_checkout_session_id, e.stripe_invoice_id,
           e.stripe_payment_intent_id, e.stripe_charge_id, e.stripe_refund_id
    FROM ledger_entries e
    JOIN ledger_accounts fa ON fa.id = e.from_account
    JOIN ledger_accounts ta ON ta.id = e.to_account
    LEFT JOIN users u ON u.id = e.user_id
    WHERE ${whereClause(f)}
    ORDER BY e.seq
  ) TO STDOUT WITH (FORMAT csv)`;
}

async function manifestOf(f: ExportFilter, db: Db): Promise<ExportManifest> {
  const where = whereClause(f);
  const kinds = await db.unsafe<{ kind: string; n: string; total: string }[]>(
    `SELECT e.kind, count(*) AS n, sum(e.amount) AS total FROM ledger_entries e WHERE ${where} GROUP BY e.kind ORDER BY e.kind`,
  );
  const [last] = await db.unsafe<{ seq: string; hash: Buffer }[]>(
    `SELECT e.seq, e.hash FROM ledger_entries e WHERE ${where} ORDER BY e.seq DESC LIMIT 1`,
  );
  const [first] = await db.unsafe<{ seq: string }[]>(`SELECT e.seq FROM ledger_entries e WHERE ${where} ORDER BY e.seq LIMIT 1`);
  return {
    rows: kinds.reduce((n, k) => n + Number(k.n), 0),
    sumsByKind: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.total)])),
    firstSeq: first ? Number(first.seq) : null,
    lastSeq: last ? Number(last.seq) : null,
    lastHash: last ? last.hash.toString('hex') : null,
    filter: {
      from: f.from?.toISOString() ?? null,
      to: f.to?.toISOString() ?? null,
      userId: f.userId ?? null,
      untilSeq: f.untilSeq ?? null,
    },
    exportedAt: new Date().toISOString(),
  };
}

/** The highest sequence number now: pins an export and its manifest to the same rows. */
export async function currentSeq(db: Db = sql): Promise<number> {
  const [row] = await db<{ seq: string | null }[]>`SELECT max(seq) AS seq FROM ledger_entries`;
  return Number(row?.seq ?? 0);
}

/**
 * Streams the CSV (header line first) into `out` and returns the manifest of the same snapshot.
 * With `db` = a pool, it opens its own repeatable-read read-only transaction.
 */
export async function exportRows(
  out: Writable,
  filter: ExportFilter = {},
  opts: { end?: boolean } = {},
  db: Db = sql,
): Promise<ExportManifest> {
  const run = async (tx: Db) => {
    await new Promise<void>((resolve, reject) => out.write(EXPORT_COLUMNS.join(',') + '\n', (err) => (err ? reject(err) : resolve())));
    const stream = await tx.unsafe(copyStatement(filter)).readable();
    await pipeline(stream, out, { end: opts.end ?? false });
    return manifestOf(filter, tx);
  };
  if (typeof (db as { begin?: unknown }).begin === 'function') {
    return (db as typeof sql).begin('isolation level repeatable read read only', (tx) => run(tx));
  }
  return run(db);
}

/** The manifest alone (the admin page's second download). */
export function exportManifest(filter: ExportFilter = {}, db: Db = sql): Promise<ExportManifest> {
  return manifestOf(filter, db);
}
