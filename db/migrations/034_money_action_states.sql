-- Money actions that can fail after the fact get a state a person can see and act on.
--
-- A duplicate subscription's refund whose retries are spent can be closed by an admin once it was
-- refunded by hand (who, when and why kept), or retried from the start.
ALTER TABLE billing_subscriptions
  ADD COLUMN duplicate_refund_closed_at timestamptz,
  ADD COLUMN duplicate_refund_closed_by uuid REFERENCES users (id) ON DELETE SET NULL,
  ADD COLUMN duplicate_refund_close_note text;

-- A refund that reverses credits already spent books what the bucket held; the rest (the shortfall)
-- is taken back later, as credits come free, by a bounded job: pending, retrying (attempts, last
-- error code), done, or failed once the attempts are spent (a person decides, and may close it).
CREATE TABLE billing_shortfall_recoveries (
  ref text PRIMARY KEY, -- the refund step's finance flag ref (refund:<charge>@<running total>)
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  bucket text NOT NULL CHECK (bucket IN ('topup', 'monthly')),
  payment_ref text NOT NULL, -- the refunded payment's ledger ref (checkout session, or invoice period)
  refund_id text,
  currency text,
  refunded_minor bigint,
  credits_short integer NOT NULL CHECK (credits_short > 0),
  credits_recovered integer NOT NULL DEFAULT 0 CHECK (credits_recovered >= 0),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  last_attempt_at timestamptz,
  done_at timestamptz,
  failed_at timestamptz,
  closed_at timestamptz,
  closed_by uuid REFERENCES users (id) ON DELETE SET NULL,
  close_note text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_shortfall_recoveries_user_idx ON billing_shortfall_recoveries (user_id, created_at);

-- What admins did to money actions (retry, close): who, when, on what, and their note.
CREATE TABLE billing_admin_actions (
  id bigserial PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  admin_id uuid REFERENCES users (id) ON DELETE SET NULL,
  action text NOT NULL,
  ref text NOT NULL,
  note text
);
CREATE INDEX billing_admin_actions_ref_idx ON billing_admin_actions (ref, created_at);
