// Where a money action that runs after the fact stands (a duplicate subscription's refund, a
// refund's shortfall taken back later), read from its row the same way by the subscription page,
// the admin page and `ledger reconcile`.

export type MoneyActionState = 'pending' | 'retrying' | 'done' | 'failed' | 'closed';
export type DuplicateRefundState = MoneyActionState;

/**
 * Done, closed (an admin settled it by hand, with a note), failed (the attempts are spent),
 * retrying (an attempt failed), or pending (none failed yet).
 */
export function moneyActionState(r: {
  doneAt: Date | null;
  closedAt?: Date | null;
  failedAt: Date | null;
  lastError: string | null;
  attempts: number;
}): MoneyActionState {
  if (r.doneAt) return 'done';
  if (r.closedAt) return 'closed';
  if (r.failedAt) return 'failed';
  if (r.lastError && r.attempts > 0) return 'retrying';
  return 'pending';
}

/** A duplicate subscription's refund: done once canceled and refunded (duplicate_resolved_at). */
export function duplicateRefundState(r: {
  resolvedAt: Date | null;
  closedAt?: Date | null;
  failedAt: Date | null;
  lastError: string | null;
  attempts: number;
}): DuplicateRefundState {
  return moneyActionState({ ...r, doneAt: r.resolvedAt });
}
