// Where the refund of a duplicate subscription stands, read from its row the same way by the
// subscription page, the admin page and `ledger reconcile`.

export type DuplicateRefundState = 'pending' | 'retrying' | 'done' | 'failed';

/** Done, failed (the attempts are spent), retrying (an attempt failed), or pending (none failed yet). */
export function duplicateRefundState(r: {
  resolvedAt: Date | null;
  failedAt: Date | null;
  lastError: string | null;
  attempts: number;
}): DuplicateRefundState {
  if (r.resolvedAt) return 'done';
  if (r.failedAt) return 'failed';
  if (r.lastError && r.attempts > 0) return 'retrying';
  return 'pending';
}
