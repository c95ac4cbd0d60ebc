import { jobSql, type Db } from '../../../db/client';
import { getBoss } from '~/queue/boss';
import { providerKey, type Provider } from '../api-keys.server';
import { extendHoldsWithin, holdKeyWithin } from '../ledger.server';
import { GENERATE_QUEUE, leaseHoldExpiry } from './rules.server';
import type { ClaimedItem, ItemRow, KeyLookup } from './item.server';

// A worker's side of the queue: claiming items under a lease, giving back those it will not work
// on, marking jobs done, and reviving the jobs of workers that died (their lease ran out). The
// claim itself is db/functions/generation.sql's generation_claim (one round trip, serialised by an
// advisory lock, so the per-user count is exact). The loop claims on a connection of its own
// (db/client.ts claimSql); the rest runs on the jobs pool.

/**
 * How long a claim's round trip took as the client saw it, and its parts, from the database's clock
 * (the same machine's, to a millisecond or so elsewhere): what makes a slow claim slow.
 */
export type ClaimTiming = {
  queryMs?: number;
  /** Sent until PostgreSQL began the statement: a free connection, the statements ahead on it. */
  waitMs?: number;
  /** Begun until the claim's lock was granted: another process's claim. */
  lockMs?: number;
  /** Locked until the statement ended: the claim's own work. */
  workMs?: number;
  /** Ended until the answer was read: the network and this process's busy event loop. */
  readMs?: number;
};

/**
 * Claims up to n jobs for this process, at most `perUser` items per user leased in total, and
 * renews the claimed items' holds to the lease (ledger extendHolds) in the same statement: one
 * round trip, one transaction, and the claim's lock is held only while the database works (a
 * transaction of three round trips held it while the worker's busy event loop sent the next
 * statement, and the other workers' claims waited for that).
 */
export async function claimItems(
  n: number,
  perUser: number,
  leaseSeconds: number,
  /** This process's items whose provider already answered (being booked): not counted as busy. */
  answered: string[] = [],
  /** This process's items sent to their provider since its last claim. */
  started: string[] = [],
  /** Filled in with the claim's timing, when given. */
  timing: ClaimTiming = {},
  db: Db = jobSql,
): Promise<ClaimedItem[]> {
  if (n <= 0 && started.length === 0) return [];
  const key = () => holdKeyWithin(db`c.job_data->>'resultId'`, db`c.job_data->>'attempt'`, db);
  const renewed = extendHoldsWithin(db`ARRAY(SELECT ${key()} FROM c WHERE c.item IS NOT NULL)`, leaseHoldExpiry(leaseSeconds), db);
  const t0 = performance.now();
  // The holds are renewed from what the claim took (held reads the claim's rows, so it runs after).
  // One row even when nothing was claimed, for the statement's times.
  const rows = await db<
    {
      jobId: string;
      jobData: { resultId: string; userId: string; attempt: number };
      leased: boolean;
      deliveries: number | null;
      item: ItemRow | null;
      priority: number;
      held: boolean;
      begunAt: number;
      lockedAt: string | null;
      endedAt: number;
    }[]
  >`
    WITH c AS MATERIALIZED (
      SELECT * FROM generation_claim(${GENERATE_QUEUE}, ${Math.max(0, n)}, ${perUser}, ${leaseSeconds}, ${answered}::uuid[], ${started}::uuid[])
    ), held AS MATERIALIZED (
      SELECT item FROM ${renewed} AS item
    )
    SELECT c.job_id AS "jobId", c.job_data AS "jobData", c.leased, c.deliveries, c.item, c.priority,
      c.item IS NOT NULL AND ${key()} IN (SELECT item FROM held) AS held,
      extract(epoch FROM statement_timestamp()) * 1000 AS "begunAt",
      current_setting('postforge.claim_locked_at', true) AS "lockedAt", extract(epoch FROM clock_timestamp()) * 1000 AS "endedAt"
    FROM (SELECT 1) AS one LEFT JOIN c ON true`;
  const t1 = performance.now();
  timing.queryMs = t1 - t0;
  const at = rows[0]!;
  const lockedAt = at.lockedAt ? Number(at.lockedAt) : NaN; // none when nothing was wanted (no lock)
  timing.waitMs = Number(at.begunAt) - (performance.timeOrigin + t0);
  timing.lockMs = lockedAt - Number(at.begunAt);
  timing.workMs = Number(at.endedAt) - lockedAt;
  timing.readMs = performance.timeOrigin + t1 - Number(at.endedAt);
  return rows
    .filter((r) => r.jobId !== null)
    .map((r) => ({
      jobId: r.jobId,
      resultId: r.jobData.resultId,
      userId: r.jobData.userId,
      attempt: r.jobData.attempt,
      leased: r.leased,
      deliveries: r.deliveries ?? 0,
      leaseSeconds,
      priority: r.priority,
      row: r.item ? { ...r.item, held: r.held } : undefined,
    }));
}

/** A key lookup that asks the database once per user and provider (the items of one claim). */
export function claimKeyLookup(db: Db = jobSql): KeyLookup {
  const memo = new Map<string, Promise<string | null>>();
  return (userId: string, provider: Provider) => {
    const k = `${provider}:${userId}`;
    let key = memo.get(k);
    if (!key) memo.set(k, (key = providerKey(userId, provider, db)));
    return key;
  };
}

/** Of items a worker keeps next in line, those no longer processing in their attempt (canceled). */
export async function withdrawnItems(items: { resultId: string; attempt: number }[], db: Db = jobSql): Promise<Set<string>> {
  const rows = await db<{ id: string }[]>`
    SELECT w.id FROM unnest(${items.map((i) => i.resultId)}::uuid[], ${items.map((i) => i.attempt)}::int[]) AS w(id, attempt)
    WHERE NOT EXISTS (SELECT 1 FROM generation_results r WHERE r.id = w.id AND r.attempt = w.attempt AND r.status = 'processing')`;
  return new Set(rows.map((r) => r.id));
}

/** Gives back leases of items that never reached their provider: revived elsewhere, not counted as a delivery. */
export async function releaseItems(resultIds: string[], db: Db = jobSql): Promise<void> {
  await db`
    UPDATE generation_results SET lease_until = now(), deliveries = greatest(deliveries - 1, 0)
    WHERE id = ANY(${resultIds}::uuid[]) AND status = 'processing' AND started_at IS NULL`;
}

/** Ends now the leases of the jobs' items still processing (a stopping worker leaves them to be revived). */
export async function endLeases(jobIds: string[], db: Db = jobSql): Promise<void> {
  await db`
    UPDATE generation_results r SET lease_until = now()
    FROM pgboss.job j WHERE j.id = ANY(${jobIds}::uuid[]) AND r.id = (j.data->>'resultId')::uuid AND r.status = 'processing'`;
}

/** Marks jobs done (pg-boss's complete, batched). */
export async function completeJobs(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const boss = await getBoss();
  await boss.complete(GENERATE_QUEUE, ids);
}

/** Puts back jobs whose item's lease expired (its worker died): they are fetched again at once. */
export async function reviveAbandoned(db: Db = jobSql): Promise<number> {
  const rows = await db`
    UPDATE pgboss.job j SET state = 'retry', start_after = now()
    FROM generation_results r
    WHERE j.name = ${GENERATE_QUEUE} AND j.state = 'active'
      AND r.id = (j.data->>'resultId')::uuid AND r.attempt = (j.data->>'attempt')::int
      AND r.status = 'processing' AND r.lease_until IS NOT NULL AND r.lease_until < now()
    RETURNING j.id`;
  return rows.count;
}
