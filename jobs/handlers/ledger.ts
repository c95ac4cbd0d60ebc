import type PgBoss from 'pg-boss';
import { resetDueUsers, sweepExpiredHolds } from '~/services/ledger.server';
import { getLogger } from '~/runtime/logger.server';
import { jobSql } from '../../db/client';

// Both are safe to run twice or side by side: every booking is keyed and taken under the user's
// lock. They work on the jobs pool (db/client.ts), never on the web pool.

export async function handleLedgerMonthlyReset(_jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const rows = await resetDueUsers({}, jobSql);
  if (rows > 0) getLogger().info({ rows }, 'ledger: monthly resets booked');
}

export async function handleLedgerSweepHolds(_jobs: PgBoss.Job<unknown>[]): Promise<void> {
  const voided = await sweepExpiredHolds({}, jobSql);
  if (voided > 0) getLogger().info({ voided }, 'ledger: expired holds voided');
}
