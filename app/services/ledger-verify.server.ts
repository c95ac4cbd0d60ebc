import { sql } from '../../db/client';
import type { Db } from './ledger.server';

// `verify`: replays the rows and checks them against everything derived from them. Each check is
// one set-based query, so a million rows take seconds, not minutes.

export type VerifyProblem = { check: string; message: string; seq?: number; userId?: string };
export type VerifyReport = {
  ok: boolean;
  rows: number;
  users: number;
  problems: VerifyProblem[];
  /** Net posted balance over every account (user projections + system replay): must be 0. */
  systemSum: number | null;
};

export type VerifyOptions = { userId?: string; limit?: number };

const GENESIS = Buffer.alloc(32);

export async function verifyLedger(opts: VerifyOptions = {}, db: Db = sql): Promise<VerifyReport> {
  // One snapshot for every check, so that bookings made meanwhile cannot look like mismatches.
  if (typeof (db as { begin?: unknown }).begin === 'function') {
    return (db as typeof sql).begin('isolation level repeatable read read only', (tx) => verifyIn(opts, tx));
  }
  return verifyIn(opts, db);
}

async function verifyIn(opts: VerifyOptions, db: Db): Promise<VerifyReport> {
  const limit = opts.limit ?? 100;
  const user = opts.userId;
  const onlyUser = (col: string) => (user ? db`AND ${db(col)} = ${user}` : db``);
  const problems: VerifyProblem[] = [];
  const add = (check: string, list: { seq?: string | null; userId?: string | null; message: string }[]) => {
    for (const p of list) {
      problems.push({
        check,
        message: p.message,
        ...(p.seq != null ? { seq: Number(p.seq) } : {}),
        ...(p.userId ? { userId: p.userId } : {}),
      });
    }
  };

  const [{ rows, users }] = (await db<{ rows: number; users: number }[]>`
    SELECT count(*)::int AS rows, count(DISTINCT user_id)::int AS users FROM ledger_entries WHERE true ${onlyUser('user_id')}`) as unknown as [
    { rows: number; users: number },
  ];

  // 1. Each row's hash is sha256(prev_hash || canonical row): a changed field breaks it (Stripe ids included).
  add(
    'hash',
    await db`
      SELECT seq, user_id AS "userId", 'row ' || seq || ': hash does not match its contents' AS message
      FROM ledger_entries
      WHERE hash <> sha256(prev_hash || ledger_canonical(seq, id, created_at, user_id, kind, from_account, to_account,
              amount, balance_after, pending_seq, external_ref, idempotency_key, reason, actor, stripe_event_id,
              stripe_checkout_session_id, stripe_invoice_id, stripe_payment_intent_id, stripe_charge_id, currency, amount_minor,
              stripe_refund_id))
        ${onlyUser('user_id')}
      ORDER BY seq LIMIT ${limit}`,
  );

  // 2. Each row links to the previous row of its user (a removed or re-hashed row breaks the link).
  add(
    'chain',
    await db`
      SELECT seq, user_id AS "userId", 'row ' || seq || ': prev_hash does not match the previous row of the user' AS message
      FROM (SELECT seq, user_id, prev_hash, lag(hash) OVER (PARTITION BY user_id ORDER BY seq) AS expected
            FROM ledger_entries WHERE true ${onlyUser('user_id')}) x
      WHERE prev_hash <> coalesce(expected, ${GENESIS})
      ORDER BY seq LIMIT ${limit}`,
  );

  // 3. The stored chain head is the last row (a dropped tail shows here).
  add(
    'head',
    await db`
      SELECT l.user_id AS "userId", l.last_seq AS seq,
             'user ' || l.user_id || ': chain head ' || coalesce(l.last_seq::text, 'none') || ' is not the last row ' || coalesce(t.seq::text, 'none') AS message
      FROM ledger_users l
      LEFT JOIN LATERAL (SELECT seq, hash FROM ledger_entries e WHERE e.user_id = l.user_id ORDER BY seq DESC LIMIT 1) t ON true
      WHERE (l.last_seq IS DISTINCT FROM t.seq OR l.last_hash <> coalesce(t.hash, ${GENESIS})) ${onlyUser('l.user_id')}
      LIMIT ${limit}`,
  );

  // 4. Accounts: one side of each row is a bucket of the row's user, the other a system account;
  //    a post/void resolves a reserve of the same accounts and amount.
  add(
    'accounts',
    await db`
      SELECT e.seq, e.user_id AS "userId", 'row ' || e.seq || ': its accounts do not fit its user and kind' AS message
      FROM ledger_entries e
      LEFT JOIN ledger_accounts f ON f.id = e.from_account
      LEFT JOIN ledger_accounts t ON t.id = e.to_account
      LEFT JOIN ledger_entries h ON h.seq = e.pending_seq
      WHERE (f.id IS NULL OR t.id IS NULL
         OR NOT ((f.user_id = e.user_id AND t.user_id IS NULL) OR (t.user_id = e.user_id AND f.user_id IS NULL))
         OR (e.kind IN ('reserve', 'post', 'void') AND (f.user_id IS NULL OR t.code <> 'consumed'))
         OR (e.pending_seq IS NOT NULL AND (h.kind <> 'reserve' OR h.user_id <> e.user_id OR h.from_account <> e.from_account
             OR h.to_account <> e.to_account OR h.amount <> e.amount))) ${onlyUser('e.user_id')}
      ORDER BY e.seq LIMIT ${limit}`,
  );

  // 5. balance_after is the running sum of the user's changes.
  add(
    'balance_after',
    await db`
      SELECT seq, user_id AS "userId", 'row ' || seq || ': balance_after ' || balance_after || ' but the replay gives ' || running AS message
      FROM (SELECT e.seq, e.user_id, e.balance_after,
                   sum(CASE WHEN e.kind = 'post' THEN 0 WHEN e.kind = 'void' THEN e.amount WHEN e.kind = 'reserve' THEN -e.amount
                            WHEN t.user_id IS NOT NULL THEN e.amount ELSE -e.amount END)
                     OVER (PARTITION BY e.user_id ORDER BY e.seq) AS running
            FROM ledger_entries e JOIN ledger_accounts t ON t.id = e.to_account
            WHERE true ${onlyUser('e.user_id')}) x
      WHERE balance_after <> running
      ORDER BY seq LIMIT ${limit}`,
  );

  // 6. Rebuild every bucket's projection from the rows and compare it with the stored one.
  const replay = db`
    SELECT account, sum(cp) AS cp, sum(dp) AS dp, sum(pd) AS pd FROM (
      SELECT from_account AS account, 0 AS cp,
             coalesce(sum(amount) FILTER (WHERE kind NOT IN ('reserve', 'void')), 0) AS dp,
             coalesce(sum(CASE kind WHEN 'reserve' THEN amount WHEN 'post' THEN -amount WHEN 'void' THEN -amount ELSE 0 END), 0) AS pd
      FROM ledger_entries WHERE true ${onlyUser('user_id')} GROUP BY from_account
      UNION ALL
      SELECT to_account, coalesce(sum(amount) FILTER (WHERE kind NOT IN ('reserve', 'void')), 0), 0, 0
      FROM ledger_entries WHERE true ${onlyUser('user_id')} GROUP BY to_account) m
    GROUP BY account`;
  add(
    'projection',
    await db`
      SELECT a.user_id AS "userId",
             'user ' || a.user_id || ' ' || a.code || ': stored (credits ' || a.credits_posted || ', debits ' || a.debits_posted
               || ', pending ' || a.debits_pending || ') but the replay gives (credits ' || coalesce(r.cp, 0) || ', debits '
               || coalesce(r.dp, 0) || ', pending ' || coalesce(r.pd, 0) || ')' AS message
      FROM ledger_accounts a LEFT JOIN (${replay}) r ON r.account = a.id
      WHERE a.user_id IS NOT NULL ${onlyUser('a.user_id')}
        AND (a.credits_posted <> coalesce(r.cp, 0) OR a.debits_posted <> coalesce(r.dp, 0) OR a.debits_pending <> coalesce(r.pd, 0))
      LIMIT ${limit}`,
  );

  // 7. Open holds: the sweeper's table equals the reserves without a resolving row; none expired.
  add(
    'holds',
    await db`
      SELECT coalesce(r.seq, o.seq) AS seq, coalesce(r.user_id, o.user_id) AS "userId",
             CASE WHEN o.seq IS NULL THEN 'row ' || r.seq || ': open hold missing from ledger_open_holds'
                  ELSE 'row ' || o.seq || ': ledger_open_holds lists a hold that is not open' END AS message
      FROM (SELECT h.seq, h.user_id FROM ledger_entries h
            WHERE h.kind = 'reserve' ${onlyUser('h.user_id')}
              AND NOT EXISTS (SELECT 1 FROM ledger_entries x WHERE x.pending_seq = h.seq)) r
      FULL JOIN (SELECT seq, user_id FROM ledger_open_holds WHERE true ${onlyUser('user_id')}) o ON o.seq = r.seq
      WHERE r.seq IS NULL OR o.seq IS NULL
      LIMIT ${limit}`,
  );
  // An unresolved hold whose expiry has passed: its owner neither resolved nor extended it, and the
  // sweeper (every 5 minutes) has not voided it yet.
  add(
    'expired_hold',
    await db`
      SELECT o.seq, o.user_id AS "userId",
             'row ' || o.seq || ': hold for ' || o.item || ' expired at '
               || to_char(o.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' and is not resolved' AS message
      FROM ledger_open_holds o
      WHERE o.expires_at < now() ${onlyUser('o.user_id')}
      ORDER BY o.seq LIMIT ${limit}`,
  );

  // 8. The system is balanced: user projections plus system accounts (replayed) sum to zero, and
  //    pending debits of the users equal pending credits of the system.
  let systemSum: number | null = null;
  if (!user) {
    const [sums] = await db<{ posted: string; pending: string }[]>`
      WITH r AS (${replay})
      SELECT
        (SELECT coalesce(sum(credits_posted - debits_posted), 0) FROM ledger_accounts WHERE user_id IS NOT NULL)
        + (SELECT coalesce(sum(r.cp - r.dp), 0) FROM r JOIN ledger_accounts a ON a.id = r.account WHERE a.user_id IS NULL) AS posted,
        (SELECT coalesce(sum(debits_pending), 0) FROM ledger_accounts WHERE user_id IS NOT NULL)
        - (SELECT coalesce(sum(amount) FILTER (WHERE kind = 'reserve'), 0) - coalesce(sum(amount) FILTER (WHERE kind IN ('post', 'void')), 0)
           FROM ledger_entries) AS pending`;
    systemSum = Number(sums!.posted);
    if (systemSum !== 0) problems.push({ check: 'balanced', message: `the accounts sum to ${systemSum}, not 0` });
    if (Number(sums!.pending) !== 0) {
      problems.push({ check: 'balanced', message: `pending debits and pending credits differ by ${sums!.pending}` });
    }
  }

  return { ok: problems.length === 0, rows, users, problems, systemSum };
}

/** A report as lines of text (CLI and admin page). */
export function formatReport(report: VerifyReport): string[] {
  const lines = [`rows checked: ${report.rows}`, `users: ${report.users}`];
  if (report.systemSum !== null) lines.push(`sum over all accounts: ${report.systemSum}`);
  if (report.ok) lines.push('OK: the ledger verifies');
  else for (const p of report.problems) lines.push(`FAIL [${p.check}] ${p.message}`);
  return lines;
}
