import type PgBoss from 'pg-boss';
import { resetDueUsers, sweepStaleHolds } from '~/services/ledger.server';
import { loadEnv } from '~/utils/env.server';
import { getLogger } from '~/utils/logger.server';

// Both are safe to run twice or side by side: every booking is keyed and taken under the user's lock.

export async function handleLedgerMonthlyReset(_jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const rows = await resetDueUsers();
  if (rows > 0) getLogger().info({ rows }, 'ledger: monthly resets booked');
}

export async function handleLedgerSweepHolds(_jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const voided = await sweepStaleHolds(loadEnv().LEDGER_HOLD_MAX_AGE_SECONDS * 1000);
  if (voided > 0) getLogger().info({ voided }, 'ledger: stale holds voided');
}
