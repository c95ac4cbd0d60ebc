import { sql, type Db } from '../../db/client';
import { duplicateRefundState } from './duplicate-refund-state.server';

// Finance's side of billing_finance_flags (the billing service writes them): the list on
// /admin/ledger, open ones first, and the acknowledgement an admin gives once they have looked.

export type FlagState = 'open' | 'acknowledged';

export type FinanceFlag = {
  id: number;
  createdAt: string;
  kind: string;
  ref: string;
  userEmail: string | null;
  /**
   * The money of this flag's own step, when it names some (minor units, in `currency`): a refund
   * step's amount (not Stripe's running total), an invoice's payment, a duplicate's refunds.
   */
  currency: string | null;
  amountMinor: number | null;
  /** A refund's running total after this step (Stripe's `amount_refunded`); null for other flags. */
  cumulativeMinor: number | null;
  /** A duplicate subscription's refund, which a job makes after the fact: where it stands. */
  refund: { state: 'pending' | 'retrying' | 'done' | 'failed'; attempts: number; lastError: string | null } | null;
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
  previousRefunded: string | null;
  paymentCurrency: string | null;
  dupResolvedAt: Date | null;
  dupFailedAt: Date | null;
  dupLastError: string | null;
  dupAttempts: number | null;
};

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The newest flags in one state (at most FLAGS_PAGE), and how many there are in each state. */
export async function listFinanceFlags(
  state: FlagState,
  db: Db = sql,
): Promise<{ flags: FinanceFlag[]; counts: Record<FlagState, number> }> {
  const rows = await db<Raw[]>`
    SELECT f.id, f.created_at AS "createdAt", f.kind, f.ref, u.email AS "userEmail", f.detail,
      f.acknowledged_at AS "acknowledgedAt", a.email AS "acknowledgedBy",
      -- Refund flags written before they named their step carry only the running total: the step is
      -- what it adds to the flag of the charge's step before.
      (SELECT max((p.detail ->> 'amountRefunded')::bigint) FROM billing_finance_flags p
        WHERE p.kind = f.kind AND p.detail ->> 'charge' = f.detail ->> 'charge'
          AND (p.detail ->> 'amountRefunded')::bigint < (f.detail ->> 'amountRefunded')::bigint) AS "previousRefunded",
      -- and a refund that named no currency is in its payment's.
      (SELECT e.currency FROM ledger_entries e WHERE f.detail ->> 'charge' IS NOT NULL
        AND e.stripe_charge_id = f.detail ->> 'charge' AND e.currency IS NOT NULL LIMIT 1) AS "paymentCurrency",
      s.duplicate_resolved_at AS "dupResolvedAt", s.duplicate_refund_failed_at AS "dupFailedAt",
      s.duplicate_refund_last_error AS "dupLastError", s.duplicate_refund_attempts AS "dupAttempts"
    FROM billing_finance_flags f
    LEFT JOIN billing_subscriptions s ON f.kind = 'duplicate_subscription' AND 'duplicate_subscription:' || s.subscription_id = f.ref
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
      const refund = r.kind === 'topup_refund' || r.kind === 'invoice_refund';
      const cumulative = refund ? (num(d.refundedTotalMinor) ?? num(d.amountRefunded)) : null;
      const step = refund
        ? (num(d.refundedMinor) ?? (cumulative === null ? null : cumulative - Number(r.previousRefunded ?? 0)))
        : (num(d.amountPaid) ?? num(d.refundedCents));
      return {
        id: Number(r.id),
        createdAt: r.createdAt.toISOString(),
        kind: r.kind,
        ref: r.ref,
        userEmail: r.userEmail,
        currency: typeof d.currency === 'string' ? d.currency : r.paymentCurrency,
        amountMinor: step,
        cumulativeMinor: cumulative,
        refund:
          r.dupAttempts === null
            ? null
            : {
                state: duplicateRefundState({
                  resolvedAt: r.dupResolvedAt,
                  failedAt: r.dupFailedAt,
                  lastError: r.dupLastError,
                  attempts: r.dupAttempts,
                }),
                attempts: r.dupAttempts,
                lastError: r.dupLastError,
              },
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
