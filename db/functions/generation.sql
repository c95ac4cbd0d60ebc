-- Generation's claim (app/services/generation/claim.server.ts claimItems): applied after the migrations on every migrate, like
-- ledger.sql, so it must be safe to run again (CREATE OR REPLACE).
--
-- generation_claim takes up to p_n queued `generate-item` jobs for one worker process, at most
-- p_per_user items per user in flight across all processes, in ONE round trip. Claims are
-- serialised by a transaction-level advisory lock, and the query that counts the live leases runs
-- after the lock is granted (PL/pgSQL takes a fresh snapshot per statement), so the count is exact.
-- - Fair: jobs by pg-boss priority (minus the item's position in its run), so runs interleave.
-- - Each claimed job's item gets a lease (lease_until) and its delivery count; a job whose item is
--   no longer processing in that attempt, or is leased by another worker, comes back unleased.
-- - The item's row comes with the claim (the worker would otherwise read it in one more round trip
--   per item); the caller renews the claimed items' holds to the lease through the ledger service,
--   in the same statement (extendHoldsWithin: only app/services/ledger.server.ts writes ledger_* calls).
-- - Every leased item counts against its user's limit, whether at its provider or next in line in
--   its worker; p_answered: the calling process's items whose provider already answered (being
--   booked): they are not at the provider any more and do not count.
-- - p_started: the calling process's items sent to their provider since its last claim (started_at:
--   a cancel no longer ends them); a claimed item starts with none.
-- - Each job comes with its priority: the worker gives its free slots to the items it holds next in
--   line in that order, so a newcomer's first item passes the line a worker already holds.
-- The order it reads the queue in is pgboss.job's job_fetch_order_idx (app/queue/boss.ts).
DROP FUNCTION IF EXISTS generation_claim(text, int, int, int, timestamptz, uuid[]);
DROP FUNCTION IF EXISTS generation_claim(text, int, int, int, timestamptz, uuid[], uuid[]);
-- The result's columns changed (priority): CREATE OR REPLACE cannot change them, so an older
-- definition is dropped first. Only that one: this file runs at every process's start, and
-- dropping the current function would fail a claim another running process is making.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'generation_claim'
      AND pronamespace = current_schema()::regnamespace AND NOT ('priority' = ANY (proargnames))) THEN
    DROP FUNCTION generation_claim(text, int, int, int, uuid[], uuid[]);
  END IF;
END $$;
CREATE OR REPLACE FUNCTION generation_claim(p_queue text, p_n int, p_per_user int, p_lease_secs int,
  p_answered uuid[], p_started uuid[])
RETURNS TABLE (job_id uuid, job_data jsonb, leased boolean, deliveries int, item json, priority int)
-- The queue is read in its index's order and the leases through their partial index, whatever the
-- statistics say: a queue that grew by thousands since the last ANALYZE was planned as a few rows,
-- and every claim then sorted the whole queue and scanned every result (~12 ms at 10,000 queued
-- against ~1 ms; the cached plan stays until autovacuum analyzes the tables). The leases are read by
-- a plain index scan: it marks the dead versions it passes (every item's claim and end leave two),
-- where a bitmap scan reads them all again in each claim until a vacuum (p50 3.0 against 1.8 ms of
-- the claim's own work at 10,000 queued, p99 25 against 7).
LANGUAGE plpgsql SET enable_sort = off SET enable_seqscan = off SET enable_bitmapscan = off AS $$
#variable_conflict use_column
BEGIN
  IF cardinality(p_started) > 0 THEN
    UPDATE generation_results SET started_at = now()
    WHERE id = ANY (p_started) AND status = 'processing' AND lease_until IS NOT NULL AND started_at IS NULL;
  END IF;
  IF p_n <= 0 THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock(7226001);
  -- When the lock was granted, for the caller's timing of the claim (what it waited for).
  PERFORM set_config('postforge.claim_locked_at', (extract(epoch FROM clock_timestamp()) * 1000)::text, true);
  RETURN QUERY
    WITH busy AS (
      SELECT r.user_id, count(*)::int AS n FROM generation_results r
      WHERE r.lease_until IS NOT NULL AND r.lease_until > now() AND NOT (r.id = ANY (p_answered)) GROUP BY r.user_id
    ), cand AS (
      SELECT j.id, j.data, j.priority, j.created_on
      FROM pgboss.job j
      WHERE j.name = p_queue AND j.state < 'active' AND j.start_after < now()
        -- NOT IN over the users at their limit is one hashed set read per job; a NOT EXISTS here
        -- was a nested loop over every busy user per job, ~130 ms at 10,000 queued when the users
        -- ahead in the queue were all at their limit (NOT IN: ~7 ms). user_id is never null.
        AND (j.data->>'userId') NOT IN (SELECT b.user_id::text FROM busy b WHERE b.n >= p_per_user)
      ORDER BY j.priority DESC, j.created_on, j.id
      LIMIT p_n * 4
      FOR UPDATE OF j SKIP LOCKED
    ), ranked AS (
      SELECT c.id, c.data, c.priority, c.created_on, coalesce(b.n, 0) AS busy,
        row_number() OVER (PARTITION BY c.data->>'userId' ORDER BY c.priority DESC, c.created_on, c.id) AS rn
      FROM cand c LEFT JOIN busy b ON b.user_id::text = c.data->>'userId'
    ), picked AS (
      SELECT p.id, p.data, p.priority FROM ranked p WHERE p.rn <= p_per_user - p.busy
      ORDER BY p.priority DESC, p.created_on, p.id LIMIT p_n
    ), act AS (
      UPDATE pgboss.job j SET state = 'active', started_on = clock_timestamp(), -- after the lock: claims are ordered
        retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
      FROM picked p WHERE j.name = p_queue AND j.id = p.id
      RETURNING j.id, j.data, j.priority
    ), lease AS (
      UPDATE generation_results r SET lease_until = now() + make_interval(secs => p_lease_secs), deliveries = r.deliveries + 1,
        started_at = NULL
      FROM act a
      WHERE r.id = (a.data->>'resultId')::uuid AND r.user_id = (a.data->>'userId')::uuid
        AND r.attempt = (a.data->>'attempt')::int AND r.status = 'processing'
        AND (r.lease_until IS NULL OR r.lease_until <= now())
      RETURNING r.id, r.deliveries, r.type, r.prompt, r.model, r.metadata, r.run_id, r.attempt
    ), claimed AS (
      -- Two jobs of the same item in one batch: only the first one gets the lease.
      SELECT a.id, a.data, a.priority, l.id IS NOT NULL AND row_number() OVER (PARTITION BY a.data->>'resultId' ORDER BY a.id) = 1 AS got,
        l.deliveries AS n, l.id AS result_id, l.type, l.prompt, l.model, l.metadata, l.run_id, l.attempt
      FROM act a LEFT JOIN lease l ON l.id = (a.data->>'resultId')::uuid
    )
    SELECT c.id, c.data, c.got, c.n,
      CASE WHEN c.got THEN json_build_object('id', c.result_id, 'type', c.type, 'prompt', c.prompt, 'model', c.model,
        'settings', g.settings, 'metadata', c.metadata)
      END,
      c.priority
    FROM claimed c LEFT JOIN generation_runs g ON c.got AND g.id = c.run_id;
END $$;
