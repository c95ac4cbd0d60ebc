import { sql, type Db } from '../../db/client';
import { duplicateRefundState, moneyActionState, type MoneyActionState } from './duplicate-refund-state.server';

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
  refund: { subscriptionId: string; state: MoneyActionState; attempts: number; lastError: string | null; closeNote: string | null } | null;
  /** A refund step's shortfall (credits already spent), taken back later by a job: where it stands. */
  recovery: {
    state: MoneyActionState;
    attempts: number;
    lastError: string | null;
    creditsShort: number;
    creditsRecovered: number;
    closeNote: string | null;
  } | null;
  /** The last thing an admin did to the flag's money action (retry, close): who, when, and the note. */
  lastAction: { action: string; by: string | null; at: string; note: string | null } | null;
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
  dupId: string | null;
  dupClosedAt: Date | null;
  dupCloseNote: string | null;
  recShort: number | null;
  recRecovered: number | null;
  recAttempts: number | null;
  recLastError: string | null;
  recDoneAt: Date | null;
  recFailedAt: Date | null;
  recClosedAt: Date | null;
  recCloseNote: string | null;
  actAction: string | null;
  actBy: string | null;
  actAt: Date | null;
  actNote: string | null;
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
      s.duplicate_refund_last_error AS "dupLastError", s.duplicate_refund_attempts AS "dupAttempts",
      s.subscription_id AS "dupId", s.duplicate_refund_closed_at AS "dupClosedAt", s.duplicate_refund_close_note AS "dupCloseNote",
      r.credits_short AS "recShort", r.credits_recovered AS "recRecovered", r.attempts AS "recAttempts",
      r.last_error AS "recLastError", r.done_at AS "recDoneAt", r.failed_at AS "recFailedAt", r.closed_at AS "recClosedAt",
      r.close_note AS "recCloseNote",
      act.action AS "actAction", act.email AS "actBy", act.created_at AS "actAt", act.note AS "actNote"
    FROM billing_finance_flags f
    LEFT JOIN billing_subscriptions s ON f.kind = 'duplicate_subscription' AND 'duplicate_subscription:' || s.subscription_id = f.ref
    LEFT JOIN billing_shortfall_recoveries r ON r.ref = f.ref
    LEFT JOIN LATERAL (
      SELECT x.action, x.created_at, x.note, au.email FROM billing_admin_actions x LEFT JOIN users au ON au.id = x.admin_id
      WHERE x.ref = f.ref ORDER BY x.created_at DESC, x.id DESC LIMIT 1
    ) act ON true
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
          r.dupAttempts === null || r.dupId === null
            ? null
            : {
                subscriptionId: r.dupId,
                state: duplicateRefundState({
                  resolvedAt: r.dupResolvedAt,
                  closedAt: r.dupClosedAt,
                  failedAt: r.dupFailedAt,
                  lastError: r.dupLastError,
                  attempts: r.dupAttempts,
                }),
                attempts: r.dupAttempts,
                lastError: r.dupLastError,
                closeNote: r.dupCloseNote,
              },
        recovery:
          r.recShort === null
            ? null
            : {
                state: moneyActionState({
                  doneAt: r.recDoneAt,
                  closedAt: r.recClosedAt,
                  failedAt: r.recFailedAt,
                  lastError: r.recLastError,
                  attempts: r.recAttempts ?? 0,
                }),
                attempts: r.recAttempts ?? 0,
                lastError: r.recLastError,
                creditsShort: r.recShort,
                creditsRecovered: r.recRecovered ?? 0,
                closeNote: r.recCloseNote,
              },
        lastAction: r.actAction && r.actAt ? { action: r.actAction, by: r.actBy, at: r.actAt.toISOString(), note: r.actNote } : null,
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
