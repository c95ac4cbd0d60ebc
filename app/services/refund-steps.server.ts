// The steps of a charge's refunds as Stripe reports them, shared by the booking (billing) and by
// `ledger reconcile`, so both count the same steps.

/** One refund step of a charge: the running total it brings the charge to, and the refund object that made it when Stripe named it. */
export type RefundStep = { level: number; refundId: string | null; amount: number };

export type ChargeSnapshot = {
  amount?: number | null;
  amount_refunded?: number | null;
  refunds?: { data?: { id?: string; amount?: number; status?: string }[] } | null;
};

/**
 * The refund steps of a charge from every snapshot of it that Stripe sent. In Stripe's shape each
 * refund object (its own id and amount, newest first in `charge.refunds`) is one step, so two
 * refunds are two steps even when only the later event arrives. A payload naming no refund object
 * gives only its running total, which is then the one step known. The longest list wins: later
 * snapshots extend earlier ones.
 */
export function refundStepsOf(charges: ChargeSnapshot[]): RefundStep[] {
  const cap = Math.max(0, ...charges.map((c) => Number(c.amount) || 0));
  let list: { id?: string; amount?: number; status?: string }[] = [];
  for (const c of charges) {
    const data = c.refunds?.data ?? [];
    if (data.length > list.length) list = data;
  }
  const levels = new Map<number, string | null>();
  let level = 0;
  for (const r of [...list].reverse()) {
    if (r.status === 'failed' || r.status === 'canceled' || !(Number(r.amount) > 0)) continue;
    level = Math.min(cap, level + Number(r.amount));
    levels.set(level, r.id ?? null);
  }
  for (const c of charges) {
    const total = Math.min(Number(c.amount_refunded) || 0, cap);
    if (total > 0 && !levels.has(total)) levels.set(total, null);
  }
  const sorted = [...levels.keys()].sort((a, b) => a - b);
  return sorted.map((l, i) => ({ level: l, refundId: levels.get(l) ?? null, amount: l - (i > 0 ? sorted[i - 1]! : 0) }));
}

/** Whether any snapshot names its refund objects (Stripe's shape) rather than the running total alone. */
export function namesRefundObjects(charges: ChargeSnapshot[]): boolean {
  return charges.some((c) => (c.refunds?.data?.length ?? 0) > 0);
}

/** The running total a reversal row was booked at, from its key (`…@<minor>`); rows keyed before levels are full refunds. */
export function levelOfKey(key: string, chargeAmount: number): number {
  const at = key.lastIndexOf('@');
  return at < 0 ? chargeAmount : Number(key.slice(at + 1));
}
