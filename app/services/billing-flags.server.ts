import { sql, type Db } from '../../db/client';

// Finance's side of billing_finance_flags (the billing service writes them): the list on
// /admin/ledger, open ones first, and the acknowledgement an admin gives once they have looked.

export type FlagState = 'open' | 'acknowledged';

export type FinanceFlag = {
  id: number;
  createdAt: string;
  kind: string;
  ref: string;
  userEmail: string | null;
  /** The money the flag is about, when it names some (minor units). */
  currency: string | null;
  amountMinor: number | null;
  /** Credits that could not be taken back (refunds of credits already spent). */
  shortfall: number | null;
  detail: Record<string, unknown>;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
};

export const FLAGS_PAGE = 50;

type Raw = {
  id: string;
  createdAt: Date;
  kind: string;
  ref: string;
  userEmail: string | null;
  detail: Record<string, unknown>;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
};

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The newest flags in one state (at most FLAGS_PAGE), and how many there are in each state. */
export async function listFinanceFlags(
  state: FlagState,
  db: Db = sql,
): Promise<{ flags: FinanceFlag[]; counts: Record<FlagState, number> }> {
  const rows = await db<Raw[]>`
    SELECT f.id, f.created_at AS "createdAt", f.kind, f.ref, u.email AS "userEmail", f.detail,
      f.acknowledged_at AS "acknowledgedAt", a.email AS "acknowledgedBy"
    FROM billing_finance_flags f
    LEFT JOIN users u ON u.id = f.user_id
    LEFT JOIN users a ON a.id = f.acknowledged_by
    WHERE (f.acknowledged_at IS NULL) = ${state === 'open'}
    ORDER BY f.created_at DESC, f.id DESC
    LIMIT ${FLAGS_PAGE}`;
  const [counts] = await db<{ open: number; acknowledged: number }[]>`
    SELECT count(*) FILTER (WHERE acknowledged_at IS NULL)::int AS open, count(acknowledged_at)::int AS acknowledged
    FROM billing_finance_flags`;
  return {
    flags: rows.map((r) => {
      const d = r.detail ?? {};
      return {
        id: Number(r.id),
        createdAt: r.createdAt.toISOString(),
        kind: r.kind,
        ref: r.ref,
        userEmail: r.userEmail,
        currency: typeof d.currency === 'string' ? d.currency : null,
        // Refunds name the cumulative amount refunded; invoices what was paid; duplicates what we refunded.
        amountMinor: num(d.amountRefunded) ?? num(d.amountPaid) ?? num(d.refundedCents),
        shortfall: num(d.shortfall),
        detail: d,
        acknowledgedAt: r.acknowledgedAt?.toISOString() ?? null,
        acknowledgedBy: r.acknowledgedBy,
      };
    }),
    counts: counts ?? { open: 0, acknowledged: 0 },
  };
}

/** Marks a flag as looked at, once (a second acknowledgement keeps the first). False when there is no such flag. */
export async function acknowledgeFlag(id: number, adminId: string, db: Db = sql): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id <= 0) return false;
  const rows = await db`
    UPDATE billing_finance_flags
    SET acknowledged_at = coalesce(acknowledged_at, now()), acknowledged_by = coalesce(acknowledged_by, ${adminId})
    WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}
