import type { Sql } from '../../db/client';

// Fixture helpers without vitest, shared by the tests and the benchmark.

/**
 * Appends `count` valid top-up purchase rows of 1 credit for the user in one pass (hash chain,
 * balance_after and projection all consistent, as the booking functions would leave them), for
 * export tests and the benchmark. Much faster than booking them one by one.
 */
export async function bulkPurchases(db: Sql, userId: string, count: number, prefix = 'bulk'): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(userId) || !Number.isSafeInteger(count) || !/^[\w-]+$/.test(prefix)) throw new Error('bad input');
  await db`SELECT ledger_lock_user(${userId})`; // opens the accounts
  await db.unsafe(`DO $$
DECLARE
  v_user uuid := '${userId}';
  v_from bigint := ledger_system_account('sales');
  v_to bigint := ledger_user_account(v_user, 'topup');
  v_prev bytea;
  v_balance bigint;
  v_seq bigint; v_id uuid; v_at timestamptz; v_key text; v_hash bytea;
BEGIN
  PERFORM 1 FROM ledger_users WHERE user_id = v_user FOR UPDATE;
  SELECT last_hash INTO v_prev FROM ledger_users WHERE user_id = v_user;
  SELECT sum(credits_posted - debits_posted - debits_pending) INTO v_balance FROM ledger_accounts WHERE user_id = v_user;
  FOR i IN 1 .. ${count} LOOP
    v_seq := nextval('ledger_entries_seq'); v_id := gen_random_uuid(); v_at := clock_timestamp();
    v_balance := v_balance + 1; v_key := 'topup:${prefix}-' || v_user || '-' || v_seq;
    v_hash := sha256(v_prev || ledger_canonical(v_seq, v_id, v_at, v_user, 'topup_purchase', v_from, v_to, 1, v_balance, NULL, NULL, v_key, NULL, NULL));
    INSERT INTO ledger_entries (seq, id, created_at, user_id, kind, from_account, to_account, amount, balance_after, idempotency_key, prev_hash, hash)
    VALUES (v_seq, v_id, v_at, v_user, 'topup_purchase', v_from, v_to, 1, v_balance, v_key, v_prev, v_hash);
    v_prev := v_hash;
  END LOOP;
  UPDATE ledger_accounts SET credits_posted = credits_posted + ${count} WHERE id = v_to;
  UPDATE ledger_users SET last_seq = v_seq, last_hash = v_prev WHERE user_id = v_user;
END $$`);
}
