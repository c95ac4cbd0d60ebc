import crypto from 'node:crypto';
import type { Sql } from '../../db/client';
import { grantSignupCredits, purchaseTopUp } from '../../app/services/ledger.server';

// Fixtures for the generation tests and the benchmark (no vitest imports).

/** A user with a plan and `credits` top-up credits (plus the signup grant when asked). */
export async function createGenUser(
  db: Sql,
  opts: { status?: 'free' | 'pro' | 'canceled'; credits?: number; label?: string } = {},
): Promise<{ id: string; email: string }> {
  const email = `${opts.label ?? 'gen'}-${crypto.randomUUID()}@example.com`;
  const [row] = await db<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${email}, 'Gen Tester', ${opts.status ?? 'pro'}) RETURNING id`;
  const id = row!.id;
  // Open the ledger (and its monthly period) first, so a lazy reset never changes balances mid-test.
  await grantSignupCredits(id, db);
  if (opts.credits && opts.credits > 0) await purchaseTopUp(id, `test-${crypto.randomUUID()}`, opts.credits, undefined, db);
  return { id, email };
}

/** Available credits (both buckets, holds deducted). */
export async function available(db: Sql, userId: string): Promise<number> {
  const [row] = await db<{ n: string }[]>`
    SELECT coalesce(sum(credits_posted - debits_posted - debits_pending), 0) AS n FROM ledger_accounts WHERE user_id = ${userId}`;
  return Number(row!.n);
}

export async function openHolds(db: Sql, userId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`SELECT count(*)::int AS n FROM ledger_open_holds WHERE user_id = ${userId}`;
  return row!.n;
}

/** Waits until no result of the run is processing (or the timeout). */
export async function waitForRun(db: Sql, runId: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM generation_results WHERE run_id = ${runId} AND status = 'processing'`;
    if (row!.n === 0) return;
    if (Date.now() > until) throw new Error(`run ${runId} still has ${row!.n} items processing`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function statusCounts(db: Sql, runId: string): Promise<Record<string, number>> {
  const rows = await db<{ status: string; n: number }[]>`
    SELECT status, count(*)::int AS n FROM generation_results WHERE run_id = ${runId} GROUP BY status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** A fresh generation user with a TestClient of `baseUrl` signed in as them (a session row inserted directly). */
export async function signedInGenUser(db: Sql, baseUrl: string, opts: Parameters<typeof createGenUser>[1] = {}) {
  const user = await createGenUser(db, opts);
  // Loaded when called: the tests set their environment before the app's modules are imported.
  const { signedInClient } = await import('./input-tools');
  return { ...user, c: await signedInClient(baseUrl, user.id) };
}
