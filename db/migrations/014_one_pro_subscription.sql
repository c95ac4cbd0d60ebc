-- One Pro subscription per user.

-- At most one open Pro Checkout per user. The claim (the primary key) is taken before Stripe is
-- called and Stripe's idempotency key names it, so two tabs or two racing requests get the one
-- session without a lock held across the call. Paid or expired sessions give their claim up.
CREATE TABLE billing_pro_checkout_claims (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  claim_id uuid NOT NULL DEFAULT gen_random_uuid(),
  locale text NOT NULL,
  session_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A second subscription that still arrives (the dashboard, a session opened elsewhere, a race):
-- the one linked first stays; the other names it here, grants nothing, and the billing-duplicate
-- job cancels it at Stripe and refunds its payments. refunding_payments (payment intents or
-- charges) is written before the refunds are asked for, so their charge.refunded events are known.
ALTER TABLE billing_subscriptions
  ADD COLUMN duplicate_of text,
  ADD COLUMN refunding_payments text[] NOT NULL DEFAULT '{}',
  ADD COLUMN refunded_cents integer,
  ADD COLUMN duplicate_resolved_at timestamptz;
