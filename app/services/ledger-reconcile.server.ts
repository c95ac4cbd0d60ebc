import { sql } from '../../db/client';
import { csvField } from './ledger-csv.server';
import type { Db } from './ledger.server';
import { duplicateRefundState, moneyActionState } from './duplicate-refund-state.server';
import { levelOfKey, namesRefundObjects, refundStepsOf, type ChargeSnapshot } from './refund-steps.server';

// `reconcile`: every Stripe payment and refund we received (the verified webhook events stored in
// billing_events) against the ledger rows booked for it, 1:1, and every ledger row that carries
// Stripe money against its event. `verify` proves the rows are well-formed; this proves they are
// the right rows. Read in one snapshot, so bookings made meanwhile cannot look like mismatches.

export type ReconcileStatus =
  /** exactly the booking the money calls for */
  | 'matched'
  /** booked short or not at all, and finance has a flag for it (a refund's shortfall, an invoice not granted) */
  | 'flagged'
  /** no booking (or less than the money), and no flag: a mismatch */
  | 'unmatched'
  /** booked more than once (or more than the money): a mismatch */
  | 'double';

export type ReconcileLine = {
  /**
   * payment: a paid top-up Checkout Session or a paid invoice; refund: one refund object (`re_…`),
   * or a refunded charge when Stripe named no refund object; ledger: a row with Stripe money but no event;
   * duplicate: our refund of a duplicate subscription (done, or outstanding: pending, retrying, failed);
   * shortfall: credits a refund could not take back (already spent), taken back later by a job.
   */
  kind: 'payment' | 'refund' | 'ledger' | 'duplicate' | 'shortfall';
  status: ReconcileStatus;
  stripeId: string;
  userId: string | null;
  currency: string | null;
  /** Paid, or refunded by this step (never a running total), in minor units of `currency`. */
  amountMinor: number | null;
  /** What the ledger rows booked for it: credits and money (minor units). */
  credits: number;
  bookedMinor: number | null;
  ledgerSeqs: number[];
  events: string[];
  flags: string[];
  note: string;
};

export type ReconcileReport = {
  lines: ReconcileLine[];
  counts: Record<ReconcileStatus, number>;
  ok: boolean;
};

export type ReconcileFilter = { from?: Date; to?: Date };

export const RECONCILE_COLUMNS = [
  'kind',
  'status',
  'stripe_id',
  'user_id',
  'currency',
  'amount_minor',
  'credits',
  'booked_minor',
  'ledger_seqs',
  'events',
  'flags',
  'note',
] as const;

type Raw = {
  stripeId: string;
  kind: string;
  currency: string | null;
  amountMinor: string | null;
  events: string[];
  rows: number;
  seqs: string[] | null;
  credits: string | null;
  userId: string | null;
  bookedMinor: string | null;
  flags: string[] | null;
  shortfall: boolean | null;
};

export async function reconcile(filter: ReconcileFilter = {}, db: Db = sql): Promise<ReconcileReport> {
  if (typeof (db as { begin?: unknown }).begin === 'function') {
    return (db as typeof sql).begin('isolation level repeatable read read only', (tx) => reconcileIn(filter, tx));
  }
  return reconcileIn(filter, db);
}

async function reconcileIn(filter: ReconcileFilter, db: Db): Promise<ReconcileReport> {
  const from = filter.from ?? new Date(0);
  const to = filter.to ?? new Date('9999-12-31T00:00:00Z');

  // Payments: a paid payment-mode Checkout Session (a top-up) or a paid invoice, each once
  // whatever the number of events that named it.
  const payments = await db<Raw[]>`
    WITH ev AS (
      SELECT id, type, received_at, payload -> 'data' -> 'object' AS o FROM billing_events
      WHERE type IN ('checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid')
        AND received_at >= ${from} AND received_at < ${to}
    ), pay AS (
      SELECT CASE WHEN type = 'invoice.paid' THEN 'invoice' ELSE 'topup' END AS kind, o ->> 'id' AS "stripeId",
        array_agg(id ORDER BY received_at, id) AS events, max(o ->> 'currency') AS currency,
        max(o -> 'parent' -> 'subscription_details' ->> 'subscription') AS subscription,
        max(CASE WHEN type = 'invoice.paid' THEN (o ->> 'amount_paid')::bigint ELSE (o ->> 'amount_total')::bigint END) AS "amountMinor"
      FROM ev
      WHERE (type = 'invoice.paid' AND coalesce((o ->> 'amount_paid')::bigint, 0) > 0)
         OR (type <> 'invoice.paid' AND o ->> 'mode' = 'payment' AND o ->> 'payment_status' = 'paid')
      GROUP BY 1, 2
    )
    SELECT p."stripeId", p.kind, p.events, p.currency, p."amountMinor",
      r.rows, r.seqs, r.credits, r."bookedMinor", f.flags, f.shortfall,
      -- A payment no row books (a duplicate subscription's invoice) still names whose it was.
      coalesce(r."userId", (SELECT s.user_id::text FROM billing_subscriptions s WHERE s.subscription_id = p.subscription),
        (SELECT c.user_id::text FROM billing_checkouts c WHERE c.session_id = p."stripeId")) AS "userId"
    FROM pay p
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS rows, array_agg(seq ORDER BY seq) AS seqs, sum(amount) AS credits, min(user_id::text) AS "userId",
        sum(amount_minor) AS "bookedMinor"
      FROM (
        SELECT seq, amount, user_id, amount_minor FROM ledger_entries
          WHERE p.kind = 'topup' AND stripe_checkout_session_id = p."stripeId" AND kind = 'topup_purchase'
        UNION
        -- Purchases booked before the Stripe columns (migration 013) are found by their key.
        SELECT seq, amount, user_id, amount_minor FROM ledger_entries
          WHERE p.kind = 'topup' AND idempotency_key = 'topup:' || p."stripeId"
        UNION
        SELECT seq, amount, user_id, amount_minor FROM ledger_entries
          WHERE p.kind = 'invoice' AND stripe_invoice_id = p."stripeId" AND kind = 'monthly_grant'
      ) x
    ) r ON true
    LEFT JOIN LATERAL (
      -- An invoice not granted (Stripe's order, a period over) or of a duplicate subscription (canceled
      -- and refunded, grants nothing) is booked by no row on purpose: finance has its flag.
      -- A flag reads kind:ref, or its ref alone when the ref already names the kind.
      SELECT array_agg(CASE WHEN starts_with(ref, kind || ':') THEN ref ELSE kind || ':' || ref END ORDER BY id) AS flags, false AS shortfall FROM billing_finance_flags
      WHERE ref = 'invoice:' || p."stripeId" OR ref = 'duplicate_subscription:' || p.subscription
    ) f ON true
    ORDER BY p.kind, p."stripeId"`;

  const refunds = await refundLines(from, to, db);

  // The other way round: ledger rows that carry Stripe money, whose payment or refund no event names.
  const orphans = await db<Raw[]>`
    SELECT 'ledger' AS kind, coalesce(e.stripe_checkout_session_id, e.stripe_invoice_id, e.stripe_charge_id) AS "stripeId",
      e.currency, NULL AS "amountMinor", '{}'::text[] AS events, 1 AS rows, ARRAY[e.seq] AS seqs, e.amount AS credits,
      e.user_id::text AS "userId", e.amount_minor AS "bookedMinor", NULL AS flags, NULL AS shortfall
    FROM ledger_entries e
    WHERE e.amount_minor IS NOT NULL AND e.created_at >= ${from} AND e.created_at < ${to}
      AND e.kind IN ('topup_purchase', 'monthly_grant', 'topup_reversal', 'grant_reversal')
      AND NOT EXISTS (
        SELECT 1 FROM billing_events b
        WHERE (b.payload -> 'data' -> 'object' ->> 'id') =
          CASE WHEN e.kind IN ('topup_reversal', 'grant_reversal') THEN e.stripe_charge_id
               ELSE coalesce(e.stripe_checkout_session_id, e.stripe_invoice_id) END)
    ORDER BY e.seq`;

  const duplicates = await duplicateLines(from, to, db);
  const shortfalls = await shortfallLines(from, to, db);

  const lines: ReconcileLine[] = [
    ...payments.map((r) => line('payment', r)),
    ...refunds,
    ...orphans.map((r) => line('ledger', r)),
    ...duplicates,
    ...shortfalls,
  ];
  const counts: Record<ReconcileStatus, number> = { matched: 0, flagged: 0, unmatched: 0, double: 0 };
  for (const l of lines) counts[l.status]++;
  return { lines, counts, ok: counts.unmatched === 0 && counts.double === 0 };
}

function line(kind: ReconcileLine['kind'], r: Raw): ReconcileLine {
  const amount = r.amountMinor === null ? null : Number(r.amountMinor);
  const booked = r.bookedMinor === null ? null : Number(r.bookedMinor);
  const flags = r.flags ?? [];
  let status: ReconcileStatus;
  let note = '';
  if (kind === 'ledger') {
    status = 'unmatched';
    note = 'ledger row with Stripe money but no stored event';
  } else if (r.rows === 0) {
    status = flags.length > 0 ? 'flagged' : 'unmatched';
    note = 'no ledger row';
  } else if (kind === 'payment' && r.rows > 1) {
    status = 'double';
    note = `${r.rows} ledger rows`;
  } else if (booked !== null && amount !== null && booked > amount) {
    status = 'double';
    note = `booked ${booked} of ${amount}`;
  } else if (booked !== null && amount !== null && booked < amount) {
    status = 'unmatched';
    note = `booked ${booked} of ${amount}`;
  } else {
    status = r.shortfall ? 'flagged' : 'matched';
    if (r.shortfall) note = 'credits already spent: shortfall flagged';
  }
  return {
    kind,
    status,
    stripeId: r.stripeId,
    userId: r.userId,
    currency: r.currency,
    amountMinor: amount,
    credits: Number(r.credits ?? 0),
    bookedMinor: booked,
    ledgerSeqs: (r.seqs ?? []).map(Number),
    events: r.events ?? [],
    flags,
    note,
  };
}

/** One CSV line (RFC 4180, formula-safe) per reconcile line, header first. */
export function reconcileCsv(report: ReconcileReport): string {
  const out = [RECONCILE_COLUMNS.join(',')];
  for (const l of report.lines) {
    out.push(
      [
        l.kind,
        l.status,
        l.stripeId,
        l.userId,
        l.currency,
        l.amountMinor,
        l.credits,
        l.bookedMinor,
        l.ledgerSeqs.join(' '),
        l.events.join(' '),
        l.flags.join(' '),
        l.note,
      ]
        .map(csvField)
        .join(','),
    );
  }
  return out.join('\n') + '\n';
}

/** The summary lines (the CLI writes them to standard error). */
export function reconcileSummary(report: ReconcileReport): string[] {
  const by = (kind: ReconcileLine['kind']) => {
    const lines = report.lines.filter((l) => l.kind === kind);
    const n = (s: ReconcileStatus) => lines.filter((l) => l.status === s).length;
    return `${n('matched')} matched, ${n('flagged')} flagged, ${n('unmatched')} unmatched, ${n('double')} double`;
  };
  return [
    `payments: ${by('payment')}`,
    `refunds: ${by('refund')}`,
    `ledger rows without an event: ${report.lines.filter((l) => l.kind === 'ledger').length}`,
    `duplicate refunds: ${by('duplicate')}`,
    `refund shortfalls: ${by('shortfall')}`,
    report.ok ? 'OK: every payment and refund is booked once' : 'MISMATCH: see the unmatched and double lines',
  ];
}

type ChargeRow = {
  seq: string;
  amount: string;
  userId: string;
  minor: string | null;
  key: string;
  charge: string | null;
  intent: string | null;
  refund: string | null;
};

/**
 * Refunds, 1:1 by what Stripe sent. When the charges name their refund objects (Stripe's shape),
 * each refund object is a line that one reversal row must book: the row at the running total that
 * refund brings the charge to, with that refund's amount. When they name only the running total,
 * each charge is a line: its rows must step up to the highest total Stripe reported, each row's
 * amount the step from the row before (Stripe told no finer steps).
 */
async function refundLines(from: Date, to: Date, db: Db): Promise<ReconcileLine[]> {
  const events = await db<{ id: string; o: ChargeSnapshot & { id: string; payment_intent?: string | null; currency?: string } }[]>`
    SELECT id, payload -> 'data' -> 'object' AS o FROM billing_events
    WHERE type = 'charge.refunded' AND received_at >= ${from} AND received_at < ${to}
    ORDER BY received_at, id`;
  if (events.length === 0) return [];
  const byCharge = new Map<string, { events: string[]; snapshots: (typeof events)[number]['o'][] }>();
  for (const e of events) {
    const c = byCharge.get(e.o.id) ?? { events: [], snapshots: [] };
    c.events.push(e.id);
    c.snapshots.push(e.o);
    byCharge.set(e.o.id, c);
  }
  const charges = [...byCharge.keys()];
  const intents = [...new Set(events.map((e) => e.o.payment_intent).filter((v): v is string => typeof v === 'string'))];
  const rows = await db<ChargeRow[]>`
    SELECT seq, amount, user_id::text AS "userId", amount_minor AS minor, idempotency_key AS key, stripe_charge_id AS charge,
      NULL AS intent, stripe_refund_id AS refund
    FROM ledger_entries WHERE kind IN ('topup_reversal', 'grant_reversal') AND stripe_charge_id = ANY(${charges}::text[])
    UNION ALL
    -- Full refunds booked before the Stripe columns are found through their purchase's payment intent.
    SELECT e.seq, e.amount, e.user_id::text, e.amount_minor, e.idempotency_key, NULL, c.payment_intent, e.stripe_refund_id
    FROM billing_checkouts c JOIN ledger_entries e ON e.idempotency_key = 'topup-reversal:' || c.session_id
    WHERE c.payment_intent = ANY(${intents}::text[]) AND e.stripe_charge_id IS NULL
    ORDER BY seq`;
  const flags = await db<
    { label: string; charge: string | null; refs: string[] | null; shortfall: boolean; ref: string; userId: string | null }[]
  >`
    SELECT CASE WHEN starts_with(f.ref, f.kind || ':') THEN f.ref ELSE f.kind || ':' || f.ref END AS label, f.ref, f.detail ->> 'charge' AS charge,
      coalesce((f.detail ->> 'shortfall')::numeric, 0) > 0 AS shortfall,
      (SELECT s.refunding_payments FROM billing_subscriptions s WHERE 'duplicate_subscription:' || s.subscription_id = f.ref) AS refs,
      coalesce(f.user_id::text, (SELECT s.user_id::text FROM billing_subscriptions s WHERE 'duplicate_subscription:' || s.subscription_id = f.ref)) AS "userId"
    FROM billing_finance_flags f
    WHERE f.detail ->> 'charge' = ANY(${charges}::text[])
       OR f.ref IN (SELECT 'duplicate_subscription:' || subscription_id FROM billing_subscriptions
                    WHERE refunding_payments && (${charges}::text[] || ${intents}::text[]))
    ORDER BY f.id`;

  const lines: ReconcileLine[] = [];
  for (const [chargeId, { events: eventIds, snapshots }] of byCharge) {
    const latest = snapshots.at(-1)!;
    const intent = snapshots.map((s) => s.payment_intent).find((v) => typeof v === 'string') ?? null;
    const chargeAmount = Math.max(0, ...snapshots.map((s) => Number(s.amount) || 0));
    const currency = snapshots.map((s) => s.currency).find((v) => typeof v === 'string') ?? null;
    const mine = rows.filter((r) => r.charge === chargeId || (r.charge === null && intent !== null && r.intent === intent));
    const chargeFlags = flags.filter((f) => f.charge === chargeId || (f.refs ?? []).some((x) => x === chargeId || x === intent));
    // Our refund of a duplicate subscription, or a refund of an invoice never granted, is booked by no row on purpose.
    const unbooked = chargeFlags.filter((f) => !f.ref.startsWith('refund:')).map((f) => f.label);
    const steps = refundStepsOf(snapshots);
    const base = (stripeId: string, amountMinor: number | null) => ({
      kind: 'refund' as const,
      stripeId,
      currency,
      amountMinor,
      events: eventIds,
    });
    const booked = (rs: ChargeRow[]) => ({
      // A refund no row books (ours, of a duplicate subscription) is the flagged account's.
      userId: rs[0]?.userId ?? chargeFlags.find((f) => f.userId)?.userId ?? null,
      credits: rs.reduce((n, r) => n + Number(r.amount), 0),
      bookedMinor: rs.some((r) => r.minor !== null) ? rs.reduce((n, r) => n + Number(r.minor ?? 0), 0) : null,
      ledgerSeqs: rs.map((r) => Number(r.seq)),
    });
    if (namesRefundObjects(snapshots)) {
      const used = new Set<ChargeRow>();
      for (const step of steps) {
        // A row that names its refund object is that refund's; an older row is found by its running total.
        const at = mine.filter((r) => (r.refund ? r.refund === step.refundId : levelOfKey(r.key, chargeAmount) === step.level));
        at.forEach((r) => used.add(r));
        const stepFlags = chargeFlags.filter((f) => f.ref === `refund:${chargeId}@${step.level}`);
        lines.push({
          ...base(step.refundId ?? chargeId, step.amount),
          ...booked(at),
          ...judge(
            at,
            step.amount,
            unbooked,
            stepFlags.some((f) => f.shortfall),
          ),
          flags: [...stepFlags.map((f) => f.label), ...unbooked],
        });
      }
      // A row at a running total no refund object reaches, or naming a refund object Stripe never listed, books money Stripe never refunded.
      const stray = mine.filter((r) => !used.has(r));
      if (stray.length > 0) {
        lines.push({
          ...base(chargeId, null),
          ...booked(stray),
          status: 'double',
          note: `booked at ${stray.map((r) => r.refund ?? `running total ${levelOfKey(r.key, chargeAmount)}`).join(', ')}, which no refund object reaches`,
          flags: [],
        });
      }
      continue;
    }
    // The running total only: one line per charge.
    const total = steps.at(-1)?.level ?? Math.min(Number(latest.amount_refunded) || 0, chargeAmount);
    const result = judge(
      mine,
      total,
      unbooked,
      chargeFlags.some((f) => f.shortfall),
    );
    if (result.status === 'matched' || result.status === 'flagged') {
      // Each row must be the step from the row before it, at a total Stripe reported, each total once.
      const seen = new Set(steps.map((s) => s.level));
      let before = 0;
      for (const r of [...mine].sort((a, b) => levelOfKey(a.key, chargeAmount) - levelOfKey(b.key, chargeAmount))) {
        const level = levelOfKey(r.key, chargeAmount);
        if (level <= before) {
          Object.assign(result, { status: 'double', note: `two rows at running total ${level}` });
          break;
        }
        if (!seen.has(level) || (r.minor !== null && Number(r.minor) !== level - before)) {
          Object.assign(result, {
            status: 'unmatched',
            note: `row ${r.seq} books ${r.minor} at running total ${level}, the step is ${level - before}`,
          });
          break;
        }
        before = level;
      }
    }
    lines.push({
      ...base(chargeId, total),
      ...booked(mine),
      ...result,
      flags: chargeFlags.map((f) => f.label),
    });
  }
  return lines.sort((a, b) => a.stripeId.localeCompare(b.stripeId));
}

function judge(rows: ChargeRow[], amount: number, unbooked: string[], shortfall: boolean): { status: ReconcileStatus; note: string } {
  const minors = rows.filter((r) => r.minor !== null).map((r) => Number(r.minor));
  const booked = minors.length > 0 ? minors.reduce((a, b) => a + b, 0) : null;
  if (rows.length === 0) return { status: unbooked.length > 0 ? 'flagged' : 'unmatched', note: 'no ledger row' };
  if (rows.length > 1 && booked !== null && booked > amount)
    return { status: 'double', note: `${rows.length} ledger rows: booked ${booked} of ${amount}` };
  // One row with other money than Stripe's is a wrong booking, not a second one.
  if (rows.length === 1 && booked !== null && booked !== amount)
    return { status: 'unmatched', note: `wrong amount: booked ${booked} of ${amount}` };
  if (booked !== null && booked > amount) return { status: 'double', note: `booked ${booked} of ${amount}` };
  if (booked !== null && booked < amount) return { status: 'unmatched', note: `booked ${booked} of ${amount}` };
  return shortfall ? { status: 'flagged', note: 'credits already spent: shortfall flagged' } : { status: 'matched', note: '' };
}

/**
 * Our refunds of duplicate subscriptions, which no ledger row books (they granted nothing): done (or
 * closed by an admin who settled it by hand) is matched; pending or retrying is outstanding but
 * still under way (flagged); failed, its retries spent, is outstanding for a person (unmatched:
 * reconcile fails until it is dealt with).
 */
async function duplicateLines(from: Date, to: Date, db: Db): Promise<ReconcileLine[]> {
  const rows = await db<
    {
      id: string;
      userId: string;
      refunded: number | null;
      resolvedAt: Date | null;
      closedAt: Date | null;
      closeNote: string | null;
      failedAt: Date | null;
      lastError: string | null;
      attempts: number;
    }[]
  >`
    SELECT subscription_id AS id, user_id::text AS "userId", refunded_cents AS refunded, duplicate_resolved_at AS "resolvedAt",
      duplicate_refund_closed_at AS "closedAt", duplicate_refund_close_note AS "closeNote",
      duplicate_refund_failed_at AS "failedAt", duplicate_refund_last_error AS "lastError", duplicate_refund_attempts AS attempts
    FROM billing_subscriptions
    WHERE duplicate_of IS NOT NULL AND created_at >= ${from} AND created_at < ${to}
    ORDER BY subscription_id`;
  return rows.map((r) => {
    const state = duplicateRefundState(r);
    const status: ReconcileStatus = state === 'done' || state === 'closed' ? 'matched' : state === 'failed' ? 'unmatched' : 'flagged';
    const note =
      state === 'done'
        ? 'duplicate canceled and refunded'
        : state === 'closed'
          ? `closed by hand: ${r.closeNote ?? ''}`
          : state === 'failed'
            ? `outstanding: refund failed after ${r.attempts} attempts: ${r.lastError ?? ''}`
            : state === 'retrying'
              ? `outstanding: retrying (attempt ${r.attempts}, last error: ${r.lastError ?? ''})`
              : 'outstanding: refund pending';
    return {
      kind: 'duplicate',
      status,
      stripeId: r.id,
      userId: r.userId,
      currency: state === 'done' ? 'usd' : null,
      amountMinor: r.refunded,
      credits: 0,
      bookedMinor: null,
      ledgerSeqs: [],
      events: [],
      flags: [`duplicate_subscription:${r.id}`],
      note,
    };
  });
}

/**
 * Refund shortfalls (credits already spent when the refund came) being taken back later, one line
 * per refund step that had one, read like the duplicate refunds: done or closed is matched, pending
 * or retrying flagged (outstanding, under way), failed unmatched (outstanding for a person).
 */
async function shortfallLines(from: Date, to: Date, db: Db): Promise<ReconcileLine[]> {
  const rows = await db<
    {
      ref: string;
      userId: string;
      currency: string | null;
      refundedMinor: string | null;
      short: number;
      recovered: number;
      attempts: number;
      lastError: string | null;
      doneAt: Date | null;
      failedAt: Date | null;
      closedAt: Date | null;
      closeNote: string | null;
    }[]
  >`
    SELECT ref, user_id::text AS "userId", currency, refunded_minor AS "refundedMinor",
      credits_short AS short, credits_recovered AS recovered, attempts, last_error AS "lastError", done_at AS "doneAt",
      failed_at AS "failedAt", closed_at AS "closedAt", close_note AS "closeNote"
    FROM billing_shortfall_recoveries
    WHERE created_at >= ${from} AND created_at < ${to}
    ORDER BY ref`;
  return rows.map((r) => {
    const state = moneyActionState(r);
    const status: ReconcileStatus = state === 'done' || state === 'closed' ? 'matched' : state === 'failed' ? 'unmatched' : 'flagged';
    const left = r.short - r.recovered;
    const note =
      state === 'done'
        ? `shortfall of ${r.short} credits taken back`
        : state === 'closed'
          ? `closed by hand with ${left} of ${r.short} credits short: ${r.closeNote ?? ''}`
          : state === 'failed'
            ? `outstanding: ${left} of ${r.short} credits short after ${r.attempts} attempts: ${r.lastError ?? ''}`
            : state === 'retrying'
              ? `outstanding: ${left} of ${r.short} credits short, retrying (attempt ${r.attempts}, last error: ${r.lastError ?? ''})`
              : `outstanding: ${left} of ${r.short} credits short, pending`;
    return {
      kind: 'shortfall',
      status,
      // Named by its refund step (charge and running total), so it never passes for the refund's own line.
      stripeId: r.ref,
      userId: r.userId,
      currency: r.currency,
      amountMinor: r.refundedMinor === null ? null : Number(r.refundedMinor),
      credits: r.recovered,
      bookedMinor: null,
      ledgerSeqs: [],
      events: [],
      flags: [r.ref],
      note,
    };
  });
}
