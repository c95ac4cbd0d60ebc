-- The credit ledger's rules: every PL/pgSQL function of the ledger, as it is now. db/migrate.ts
-- applies this file after the migrations on every migrate (under the migration lock, in one
-- transaction), so each statement must be safe to run again: CREATE OR REPLACE, and DROP ... IF
-- EXISTS for a signature that changed. The tables stay in forward-only migrations (002, 004).
--
-- Plan amounts are not written here: ledger_plans holds them, synced from app/catalogue.ts by
-- every migrate.

-- Signatures replaced by this version (a changed parameter list is a new function in PostgreSQL,
-- and a leftover overload would make calls ambiguous).
DROP FUNCTION IF EXISTS ledger_write_row(uuid, text, bigint, bigint, bigint, bigint, text, text, text, text, bytea, bigint);
DROP FUNCTION IF EXISTS ledger_reserve(uuid, text[], bigint[]);
-- Migration 013: rows booked from Stripe carry their origin (p_origin).
DROP FUNCTION IF EXISTS ledger_write_row(uuid, text, bigint, bigint, bigint, bigint, text, text, text, text, bytea, bigint, timestamptz);
DROP FUNCTION IF EXISTS ledger_append(uuid, text, bigint, bigint, bigint, bigint, text, text, text, text);
DROP FUNCTION IF EXISTS ledger_transfer(uuid, text, text, bigint, text, text, text, text);

-- Rows cannot be changed: corrections are new rows. Statement-level, so even a no-op UPDATE fails.
CREATE OR REPLACE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: % is not allowed', TG_OP USING ERRCODE = 'LG010';
END $$;

-- The canonical form of a row that the chain hashes: a JSON array of its fields (unambiguous
-- escaping), time in UTC with microseconds. hash = sha256(prev_hash || canonical).
CREATE OR REPLACE FUNCTION ledger_canonical(p_seq bigint, p_id uuid, p_at timestamptz, p_user uuid, p_kind text,
  p_from bigint, p_to bigint, p_amount bigint, p_balance bigint, p_pending bigint, p_ref text, p_key text,
  p_reason text, p_actor text) RETURNS bytea LANGUAGE sql STABLE AS $$
  SELECT convert_to(json_build_array(p_seq, p_id, to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    p_user, p_kind, p_from, p_to, p_amount, p_balance, p_pending, p_ref, p_key, p_reason, p_actor)::text, 'UTF8')
$$;

-- The canonical form of a row with its Stripe origin (migration 013): the same array followed by
-- the origin's fields. A row without any (every row written before 013, and every row not booked
-- from Stripe) hashes exactly as before, so old chains still verify.
CREATE OR REPLACE FUNCTION ledger_canonical(p_seq bigint, p_id uuid, p_at timestamptz, p_user uuid, p_kind text,
  p_from bigint, p_to bigint, p_amount bigint, p_balance bigint, p_pending bigint, p_ref text, p_key text,
  p_reason text, p_actor text, p_event text, p_session text, p_invoice text, p_payment_intent text, p_charge text,
  p_currency text, p_amount_minor bigint) RETURNS bytea LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN num_nonnulls(p_event, p_session, p_invoice, p_payment_intent, p_charge, p_currency, p_amount_minor) = 0
    THEN ledger_canonical(p_seq, p_id, p_at, p_user, p_kind, p_from, p_to, p_amount, p_balance, p_pending, p_ref, p_key,
      p_reason, p_actor)
    ELSE convert_to(json_build_array(p_seq, p_id, to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
      p_user, p_kind, p_from, p_to, p_amount, p_balance, p_pending, p_ref, p_key, p_reason, p_actor,
      p_event, p_session, p_invoice, p_payment_intent, p_charge, p_currency, p_amount_minor)::text, 'UTF8') END
$$;

-- The canonical form of a row that also names its Stripe refund object (migration 032): the second
-- form's array followed by the refund id. A row without one hashes exactly as the second form.
CREATE OR REPLACE FUNCTION ledger_canonical(p_seq bigint, p_id uuid, p_at timestamptz, p_user uuid, p_kind text,
  p_from bigint, p_to bigint, p_amount bigint, p_balance bigint, p_pending bigint, p_ref text, p_key text,
  p_reason text, p_actor text, p_event text, p_session text, p_invoice text, p_payment_intent text, p_charge text,
  p_currency text, p_amount_minor bigint, p_refund text) RETURNS bytea LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_refund IS NULL
    THEN ledger_canonical(p_seq, p_id, p_at, p_user, p_kind, p_from, p_to, p_amount, p_balance, p_pending, p_ref, p_key,
      p_reason, p_actor, p_event, p_session, p_invoice, p_payment_intent, p_charge, p_currency, p_amount_minor)
    ELSE convert_to(json_build_array(p_seq, p_id, to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
      p_user, p_kind, p_from, p_to, p_amount, p_balance, p_pending, p_ref, p_key, p_reason, p_actor,
      p_event, p_session, p_invoice, p_payment_intent, p_charge, p_currency, p_amount_minor, p_refund)::text, 'UTF8') END
$$;

-- Small lookups in PL/pgSQL rather than SQL functions: PL/pgSQL caches their plans per session.
CREATE OR REPLACE FUNCTION ledger_system_account(p_code text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT id FROM ledger_accounts WHERE user_id IS NULL AND code = p_code);
END $$;

-- Every writer for a user starts here: the chain row first, then the user's buckets in id order
-- (the fixed lock order). Opens the user's accounts on first use; a new user's first period is due
-- at once (ledger_reset books its grant).
CREATE OR REPLACE FUNCTION ledger_lock_user(p_user uuid) RETURNS ledger_users LANGUAGE plpgsql AS $$
DECLARE
  r ledger_users;
BEGIN
  SELECT * INTO r FROM ledger_users WHERE user_id = p_user FOR UPDATE;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM users WHERE id = p_user) THEN
      RAISE EXCEPTION 'Unknown user %', p_user USING ERRCODE = 'LG005';
    END IF;
    INSERT INTO ledger_accounts (user_id, code) VALUES (p_user, 'monthly'), (p_user, 'topup') ON CONFLICT DO NOTHING;
    INSERT INTO ledger_users (user_id, anchor_at, next_reset_at)
      SELECT p_user, (SELECT created_at FROM users WHERE id = p_user), '-infinity'
      ON CONFLICT DO NOTHING;
    SELECT * INTO r FROM ledger_users WHERE user_id = p_user FOR UPDATE;
  END IF;
  PERFORM 1 FROM ledger_accounts WHERE user_id = p_user ORDER BY id FOR UPDATE;
  RETURN r;
END $$;

CREATE OR REPLACE FUNCTION ledger_available(p_account bigint) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT credits_posted - debits_posted - debits_pending FROM ledger_accounts WHERE id = p_account);
END $$;

CREATE OR REPLACE FUNCTION ledger_user_account(p_user uuid, p_code text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT id FROM ledger_accounts WHERE user_id = p_user AND code = p_code);
END $$;

-- Writes one row with its hash (caller holds the user's lock and has moved the projection).
-- A reserve row also opens its hold in ledger_open_holds, expiring at p_expires (an hour by default).
-- p_origin names the Stripe objects a billing booking came from (keys event, checkout_session,
-- invoice, payment_intent, charge, currency, amount_minor, refund); they go to columns of their own.
CREATE OR REPLACE FUNCTION ledger_write_row(p_user uuid, p_kind text, p_from bigint, p_to bigint, p_amount bigint,
  p_pending bigint, p_key text, p_ref text, p_reason text, p_actor text, p_prev bytea, p_balance bigint,
  p_expires timestamptz DEFAULT NULL, p_origin jsonb DEFAULT NULL)
RETURNS ledger_entries LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint := nextval('ledger_entries_seq');
  v_id uuid := gen_random_uuid();
  v_at timestamptz := clock_timestamp();
  v_event text := p_origin ->> 'event';
  v_session text := p_origin ->> 'checkout_session';
  v_invoice text := p_origin ->> 'invoice';
  v_intent text := p_origin ->> 'payment_intent';
  v_charge text := p_origin ->> 'charge';
  v_currency text := p_origin ->> 'currency';
  v_minor bigint := (p_origin ->> 'amount_minor')::bigint;
  v_refund text := p_origin ->> 'refund';
  e ledger_entries;
BEGIN
  INSERT INTO ledger_entries (seq, id, created_at, user_id, kind, from_account, to_account, amount, balance_after,
    pending_seq, external_ref, idempotency_key, reason, actor, prev_hash, hash, stripe_event_id, stripe_checkout_session_id,
    stripe_invoice_id, stripe_payment_intent_id, stripe_charge_id, currency, amount_minor, stripe_refund_id)
  VALUES (v_seq, v_id, v_at, p_user, p_kind, p_from, p_to, p_amount, p_balance, p_pending, p_ref, p_key, p_reason, p_actor,
    p_prev, sha256(p_prev || ledger_canonical(v_seq, v_id, v_at, p_user, p_kind, p_from, p_to, p_amount, p_balance,
      p_pending, p_ref, p_key, p_reason, p_actor, v_event, v_session, v_invoice, v_intent, v_charge, v_currency, v_minor,
      v_refund)),
    v_event, v_session, v_invoice, v_intent, v_charge, v_currency, v_minor, v_refund)
  RETURNING * INTO e;
  IF p_kind = 'reserve' THEN
    INSERT INTO ledger_open_holds (seq, user_id, item, created_at, expires_at)
      VALUES (v_seq, p_user, p_ref, v_at, coalesce(p_expires, v_at + interval '1 hour'));
  ELSIF p_kind IN ('post', 'void') THEN
    DELETE FROM ledger_open_holds WHERE seq = p_pending;
  END IF;
  RETURN e;
END $$;

-- Books one row (caller holds the user's lock): moves the projection, chains the hash, appends.
CREATE OR REPLACE FUNCTION ledger_append(p_user uuid, p_kind text, p_from bigint, p_to bigint, p_amount bigint,
  p_pending bigint, p_key text, p_ref text, p_reason text, p_actor text, p_origin jsonb DEFAULT NULL) RETURNS ledger_entries
LANGUAGE plpgsql AS $$
DECLARE
  v_prev bytea;
  v_balance bigint;
  e ledger_entries;
BEGIN
  IF p_kind = 'reserve' THEN
    UPDATE ledger_accounts SET debits_pending = debits_pending + p_amount WHERE id = p_from;
  ELSIF p_kind = 'post' THEN
    UPDATE ledger_accounts SET debits_pending = debits_pending - p_amount, debits_posted = debits_posted + p_amount
      WHERE id = p_from;
  ELSIF p_kind = 'void' THEN
    UPDATE ledger_accounts SET debits_pending = debits_pending - p_amount WHERE id = p_from;
  ELSE
    UPDATE ledger_accounts SET debits_posted = debits_posted + p_amount WHERE id = p_from AND user_id = p_user;
    UPDATE ledger_accounts SET credits_posted = credits_posted + p_amount WHERE id = p_to AND user_id = p_user;
  END IF;
  SELECT (SELECT sum(credits_posted - debits_posted - debits_pending) FROM ledger_accounts WHERE user_id = p_user),
         (SELECT last_hash FROM ledger_users WHERE user_id = p_user)
    INTO v_balance, v_prev;
  e := ledger_write_row(p_user, p_kind, p_from, p_to, p_amount, p_pending, p_key, p_ref, p_reason, p_actor, v_prev, v_balance,
    NULL, p_origin);
  UPDATE ledger_users SET last_seq = e.seq, last_hash = e.hash WHERE user_id = p_user;
  RETURN e;
END $$;

-- A one-phase transfer between a user bucket and a system account, booked once per key.
-- p_amount NULL means "all that is available in the bucket" (expire, forfeit); for a reversal (top-up or grant) the
-- amount is capped at what the bucket still holds.
CREATE OR REPLACE FUNCTION ledger_transfer(p_user uuid, p_kind text, p_key text, p_amount bigint, p_ref text,
  p_reason text, p_actor text, p_bucket text DEFAULT NULL, p_origin jsonb DEFAULT NULL) RETURNS ledger_entries
LANGUAGE plpgsql AS $$
DECLARE
  e ledger_entries;
  v_bucket text;
  v_system text;
  v_incoming boolean;
  v_account bigint;
  v_amount bigint := p_amount;
  v_available bigint;
BEGIN
  PERFORM ledger_lock_user(p_user);
  SELECT * INTO e FROM ledger_entries WHERE idempotency_key = p_key;
  IF FOUND THEN
    -- A replay is the same booking: same user, kind and (for grants and purchases) amount. A key
    -- reused for another amount is a caller's bug (e.g. a Pro invoice period labelled like a Free
    -- anniversary), never a silent success.
    IF e.user_id <> p_user OR e.kind <> p_kind
       OR (p_kind IN ('monthly_grant', 'topup_purchase') AND e.amount IS DISTINCT FROM p_amount) THEN
      RAISE EXCEPTION 'Idempotency key % was used for another booking', p_key USING ERRCODE = 'LG004';
    END IF;
    RETURN e;
  END IF;
  CASE p_kind
    WHEN 'monthly_grant' THEN v_bucket := 'monthly'; v_system := 'issuance'; v_incoming := true;
    WHEN 'monthly_expire' THEN v_bucket := 'monthly'; v_system := 'expired'; v_incoming := false;
    WHEN 'topup_purchase' THEN v_bucket := 'topup'; v_system := 'sales'; v_incoming := true;
    WHEN 'topup_forfeit' THEN v_bucket := 'topup'; v_system := 'expired'; v_incoming := false;
    WHEN 'topup_reversal' THEN v_bucket := 'topup'; v_system := 'sales'; v_incoming := false;
    WHEN 'grant_reversal' THEN v_bucket := 'monthly'; v_system := 'issuance'; v_incoming := false;
    WHEN 'adjustment' THEN v_bucket := coalesce(p_bucket, 'monthly'); v_system := 'adjustments'; v_incoming := p_amount > 0;
      v_amount := abs(p_amount);
    ELSE RAISE EXCEPTION 'Unknown transfer kind %', p_kind USING ERRCODE = 'LG005';
  END CASE;
  v_account := ledger_user_account(p_user, v_bucket);
  IF v_account IS NULL THEN
    RAISE EXCEPTION 'Unknown bucket %', v_bucket USING ERRCODE = 'LG005';
  END IF;
  v_available := ledger_available(v_account);
  IF v_amount IS NULL THEN
    v_amount := v_available;
  ELSIF p_kind IN ('topup_reversal', 'grant_reversal') THEN
    v_amount := least(v_amount, v_available);
  END IF;
  IF v_amount < 0 OR (v_amount = 0 AND p_kind NOT IN ('monthly_expire', 'topup_forfeit', 'topup_reversal', 'grant_reversal')) THEN
    RAISE EXCEPTION 'Amount must be positive' USING ERRCODE = 'LG005';
  END IF;
  IF NOT v_incoming AND v_amount > v_available THEN
    RAISE EXCEPTION 'Insufficient credits' USING ERRCODE = 'LG001';
  END IF;
  IF v_incoming THEN
    RETURN ledger_append(p_user, p_kind, ledger_system_account(v_system), v_account, v_amount, NULL, p_key, p_ref, p_reason, p_actor,
      p_origin);
  END IF;
  RETURN ledger_append(p_user, p_kind, v_account, ledger_system_account(v_system), v_amount, NULL, p_key, p_ref, p_reason, p_actor,
    p_origin);
END $$;

-- Holds for N items, all or nothing, monthly credits first, then top-up. An item that straddles the
-- buckets gets two holds (`reserve:{item}` and `reserve:{item}#2`). Items already reserved are
-- replays: they are returned, not booked again. Each hold expires at its p_expires (NULL: now +
-- p_default_secs); only then may the sweeper void it, and its owner can extend it meanwhile.
CREATE OR REPLACE FUNCTION ledger_reserve(p_user uuid, p_items text[], p_amounts bigint[],
  p_expires timestamptz[] DEFAULT NULL, p_default_secs int DEFAULT 3600) RETURNS SETOF ledger_entries
LANGUAGE plpgsql AS $$
DECLARE
  v_expires timestamptz;
  v_need bigint := 0;
  v_new boolean[] := '{}';
  v_owner uuid;
  v_monthly bigint;
  v_topup bigint;
  v_avail_m bigint;
  v_avail_t bigint;
  v_take bigint;
  v_part bigint;
  v_consumed bigint := ledger_system_account('consumed');
  v_balance bigint;
  v_prev bytea;
  v_seq bigint;
  v_id uuid;
  v_at timestamptz;
  v_key text;
  v_from bigint;
  -- The new rows, column by column: computed in order (each row's hash chains the one before), then
  -- written by one INSERT per table. A row at a time, the inserts were most of a large start.
  r_seq bigint[] := '{}';
  r_id uuid[] := '{}';
  r_at timestamptz[] := '{}';
  r_from bigint[] := '{}';
  r_amount bigint[] := '{}';
  r_balance bigint[] := '{}';
  r_ref text[] := '{}';
  r_key text[] := '{}';
  r_prev bytea[] := '{}';
  r_hash bytea[] := '{}';
  r_expires timestamptz[] := '{}';
  i int;
  k int;
BEGIN
  IF coalesce(array_length(p_items, 1), 0) = 0 OR array_length(p_items, 1) <> array_length(p_amounts, 1) THEN
    RAISE EXCEPTION 'Nothing to reserve' USING ERRCODE = 'LG005';
  END IF;
  PERFORM ledger_lock_user(p_user);
  FOR i IN 1 .. array_length(p_items, 1) LOOP
    IF p_amounts[i] IS NULL OR p_amounts[i] <= 0 THEN
      RAISE EXCEPTION 'Amount must be positive' USING ERRCODE = 'LG005';
    END IF;
    SELECT user_id INTO v_owner FROM ledger_entries WHERE idempotency_key = 'reserve:' || p_items[i];
    IF FOUND THEN
      IF v_owner <> p_user THEN
        RAISE EXCEPTION 'Idempotency key reserve:% was used for another booking', p_items[i] USING ERRCODE = 'LG004';
      END IF;
      v_new := v_new || false;
      RETURN QUERY SELECT * FROM ledger_entries
        WHERE idempotency_key IN ('reserve:' || p_items[i], 'reserve:' || p_items[i] || '#2') ORDER BY seq;
    ELSE
      v_new := v_new || true;
      v_need := v_need + p_amounts[i];
    END IF;
  END LOOP;
  v_monthly := ledger_user_account(p_user, 'monthly');
  v_topup := ledger_user_account(p_user, 'topup');
  v_avail_m := ledger_available(v_monthly);
  v_avail_t := ledger_available(v_topup);
  IF v_need > v_avail_m + v_avail_t THEN
    RAISE EXCEPTION 'Insufficient credits' USING ERRCODE = 'LG001';
  END IF;
  -- Move the projection once per bucket (updating the same rows once per item would pile up row
  -- versions inside the transaction), then write the rows with a running balance and chain.
  v_take := least(v_avail_m, v_need);
  UPDATE ledger_accounts SET debits_pending = debits_pending + v_take WHERE id = v_monthly AND v_take > 0;
  UPDATE ledger_accounts SET debits_pending = debits_pending + (v_need - v_take) WHERE id = v_topup AND v_need - v_take > 0;
  v_balance := v_avail_m + v_avail_t;
  SELECT last_hash INTO v_prev FROM ledger_users WHERE user_id = p_user;
  FOR i IN 1 .. array_length(p_items, 1) LOOP
    CONTINUE WHEN NOT v_new[i];
    v_expires := coalesce(p_expires[i], now() + make_interval(secs => p_default_secs));
    v_take := least(v_avail_m, p_amounts[i]);
    v_avail_m := v_avail_m - v_take;
    -- The monthly part, then the top-up part: an item that straddles the buckets has two holds.
    FOR k IN 1 .. 2 LOOP
      v_part := CASE k WHEN 1 THEN v_take ELSE p_amounts[i] - v_take END;
      CONTINUE WHEN v_part <= 0;
      v_from := CASE k WHEN 1 THEN v_monthly ELSE v_topup END;
      v_key := CASE WHEN k = 2 AND v_take > 0 THEN 'reserve:' || p_items[i] || '#2' ELSE 'reserve:' || p_items[i] END;
      v_balance := v_balance - v_part;
      v_seq := nextval('ledger_entries_seq');
      v_id := gen_random_uuid();
      v_at := clock_timestamp();
      r_seq := r_seq || v_seq;
      r_id := r_id || v_id;
      r_at := r_at || v_at;
      r_from := r_from || v_from;
      r_amount := r_amount || v_part;
      r_balance := r_balance || v_balance;
      r_ref := r_ref || p_items[i];
      r_key := r_key || v_key;
      r_prev := r_prev || v_prev;
      -- The same canonical bytes as ledger_write_row's for a row without a payment's origin.
      v_prev := sha256(v_prev || ledger_canonical(v_seq, v_id, v_at, p_user, 'reserve', v_from, v_consumed, v_part,
        v_balance, NULL::bigint, p_items[i], v_key, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
        NULL::text, NULL::text, NULL::bigint, NULL::text));
      r_hash := r_hash || v_prev;
      r_expires := r_expires || v_expires;
    END LOOP;
  END LOOP;
  IF cardinality(r_seq) = 0 THEN RETURN; END IF;
  RETURN QUERY
    WITH w AS (
      SELECT * FROM unnest(r_seq, r_id, r_at, r_from, r_amount, r_balance, r_ref, r_key, r_prev, r_hash)
        AS w(seq, id, created_at, from_account, amount, balance_after, external_ref, idempotency_key, prev_hash, hash)
    ), written AS (
      INSERT INTO ledger_entries (seq, id, created_at, user_id, kind, from_account, to_account, amount, balance_after,
        external_ref, idempotency_key, prev_hash, hash)
      SELECT w.seq, w.id, w.created_at, p_user, 'reserve', w.from_account, v_consumed, w.amount, w.balance_after,
        w.external_ref, w.idempotency_key, w.prev_hash, w.hash
      FROM w ORDER BY w.seq
      RETURNING *
    )
    SELECT * FROM written ORDER BY seq;
  INSERT INTO ledger_open_holds (seq, user_id, item, created_at, expires_at)
    SELECT h.seq, p_user, h.item, h.created_at, h.expires_at FROM unnest(r_seq, r_ref, r_at, r_expires) AS h(seq, item, created_at, expires_at);
  UPDATE ledger_users SET last_seq = r_seq[cardinality(r_seq)], last_hash = v_prev WHERE user_id = p_user;
END $$;

-- Posts (spends) or voids (releases) every hold of an item, exactly once. A replay of the same
-- outcome returns the earlier rows; the other outcome fails with 'Hold already posted/voided'.
CREATE OR REPLACE FUNCTION ledger_resolve(p_item text, p_kind text) RETURNS SETOF ledger_entries
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid;
  h ledger_entries;
  r ledger_entries;
BEGIN
  IF p_kind NOT IN ('post', 'void') THEN
    RAISE EXCEPTION 'Unknown resolution %', p_kind USING ERRCODE = 'LG005';
  END IF;
  SELECT user_id INTO v_user FROM ledger_entries WHERE idempotency_key = 'reserve:' || p_item;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'No hold for %', p_item USING ERRCODE = 'LG003';
  END IF;
  PERFORM ledger_lock_user(v_user);
  FOR h IN SELECT * FROM ledger_entries WHERE idempotency_key IN ('reserve:' || p_item, 'reserve:' || p_item || '#2') ORDER BY seq LOOP
    SELECT * INTO r FROM ledger_entries WHERE pending_seq = h.seq;
    IF FOUND THEN
      IF r.kind <> p_kind THEN
        RAISE EXCEPTION 'Hold already %', CASE r.kind WHEN 'post' THEN 'posted' ELSE 'voided' END USING ERRCODE = 'LG002';
      END IF;
      RETURN NEXT r;
      CONTINUE;
    END IF;
    RETURN NEXT ledger_append(v_user, p_kind, h.from_account, h.to_account, h.amount, h.seq,
      p_kind || ':' || substr(h.idempotency_key, 9), p_item, NULL, NULL);
  END LOOP;
END $$;

-- The monthly reset when due, for the period of the account's monthly anniversary that contains
-- p_now. A Free account: expire what is left of the monthly bucket, then grant the Free plan's
-- amount (ledger_plans), keyed by user and period so the schedule and the lazy path can race safely;
-- a user away for several periods gets the current period only; the first period books a grant
-- alone. A Pro or canceled-Pro account: nothing is booked; its period is granted only by its paid
-- invoice (billing calls expireMonthly and grantMonthly keyed by the invoice), and the reset just
-- moves the anniversary on, so a later Free period starts by expiring what Pro left.
CREATE OR REPLACE FUNCTION ledger_reset(p_user uuid, p_now timestamptz DEFAULT now()) RETURNS SETOF ledger_entries
LANGUAGE plpgsql AS $$
DECLARE
  r ledger_users;
  k int;
  v_start timestamptz;
  v_label text;
  v_status text;
  v_amount bigint;
BEGIN
  r := ledger_lock_user(p_user);
  IF r.next_reset_at > p_now THEN
    RETURN;
  END IF;
  k := greatest(0, (extract(year FROM age(p_now, r.anchor_at)) * 12 + extract(month FROM age(p_now, r.anchor_at)))::int);
  WHILE r.anchor_at + make_interval(months => k) > p_now AND k > 0 LOOP
    k := k - 1;
  END LOOP;
  WHILE r.anchor_at + make_interval(months => k + 1) <= p_now LOOP
    k := k + 1;
  END LOOP;
  v_start := r.anchor_at + make_interval(months => k);
  v_label := to_char(v_start AT TIME ZONE 'UTC', 'YYYY-MM-DD');
  SELECT subscription_status INTO v_status FROM users WHERE id = p_user;
  IF v_status IS DISTINCT FROM 'pro' AND v_status IS DISTINCT FROM 'canceled'
     AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE idempotency_key = 'grant:' || p_user || ':' || v_label) THEN
    SELECT monthly_credits INTO v_amount FROM ledger_plans WHERE plan = 'free';
    IF v_amount IS NULL THEN
      RAISE EXCEPTION 'ledger_plans has no free plan: run the migrations' USING ERRCODE = 'LG005';
    END IF;
    IF r.granted_period_start IS NOT NULL THEN
      RETURN NEXT ledger_transfer(p_user, 'monthly_expire', 'expire:' || p_user || ':' || v_label, NULL, v_label, NULL, NULL);
    END IF;
    RETURN NEXT ledger_transfer(p_user, 'monthly_grant', 'grant:' || p_user || ':' || v_label, v_amount, v_label, NULL, NULL);
  END IF;
  UPDATE ledger_users SET granted_period_start = v_start, next_reset_at = r.anchor_at + make_interval(months => k + 1)
    WHERE user_id = p_user;
END $$;

-- The owner of holds (generation, for one) moves their expiry to p_until while it still works on
-- them; never earlier than it was. Returns the items whose holds are still open (a missing item was
-- posted, voided or swept). Rows are locked in seq order, so concurrent extensions cannot deadlock.
-- Through the item index whatever the statistics say: a planner that has not seen the holds of a
-- large start yet hash-joined the whole table for two items.
CREATE OR REPLACE FUNCTION ledger_extend_holds(p_items text[], p_until timestamptz) RETURNS SETOF text
LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  RETURN QUERY
    WITH target AS (SELECT seq FROM ledger_open_holds WHERE item = ANY (p_items) ORDER BY seq FOR UPDATE)
    UPDATE ledger_open_holds o SET expires_at = greatest(o.expires_at, p_until)
      FROM target WHERE o.seq = target.seq
      RETURNING o.item;
END $$;

-- The sweeper's void of one item, only if its hold has expired by p_now. Checked again under the
-- user's lock and the hold rows' locks: an extension committed first wins (the hold stays), one
-- that comes later waits and then finds the hold voided.
CREATE OR REPLACE FUNCTION ledger_void_expired(p_item text, p_now timestamptz DEFAULT now()) RETURNS SETOF ledger_entries
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid;
BEGIN
  SELECT user_id INTO v_user FROM ledger_open_holds WHERE item = p_item LIMIT 1;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM ledger_lock_user(v_user);
  PERFORM 1 FROM ledger_open_holds WHERE item = p_item ORDER BY seq FOR UPDATE;
  IF NOT EXISTS (SELECT 1 FROM ledger_open_holds WHERE item = p_item AND expires_at <= p_now) THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT * FROM ledger_resolve(p_item, 'void');
END $$;
