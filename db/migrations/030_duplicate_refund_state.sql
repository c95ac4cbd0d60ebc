-- The refund of a duplicate subscription happens after the fact, in a job that can fail at Stripe.
-- Its state is kept beside the subscription so finance (the admin page, `ledger reconcile`) and the
-- customer see it: pending (no attempt yet), retrying (attempts so far and the last error), done
-- (duplicate_resolved_at), failed (the attempts are spent; a person refunds by hand).
ALTER TABLE billing_subscriptions
  ADD COLUMN duplicate_refund_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN duplicate_refund_last_error text,
  ADD COLUMN duplicate_refund_last_attempt_at timestamptz,
  ADD COLUMN duplicate_refund_failed_at timestamptz;
