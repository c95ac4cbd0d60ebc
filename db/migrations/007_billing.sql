-- Billing through Stripe: the customer of each user, the subscriptions and checkouts we know of,
-- the webhook inbox, and refunds flagged for finance. Credits themselves only move in the ledger
-- (keys naming the invoice period, the checkout session or the subscription's end).

-- One Stripe customer per user. The row is claimed before the customer is created (and Stripe's
-- idempotency key names the user), so a double click creates one customer.
CREATE TABLE billing_customers (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  stripe_customer_id text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE billing_subscriptions (
  subscription_id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  customer_id text,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  current_period_end timestamptz,
  -- The start of the latest invoice period granted: an older invoice arriving late grants nothing.
  granted_period_start timestamptz,
  -- The Stripe time of the latest subscription state applied: older updates are skipped.
  state_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_subscriptions_user_idx ON billing_subscriptions (user_id);

-- Every Checkout Session we created, so a session id from a browser is checked against its owner.
CREATE TABLE billing_checkouts (
  session_id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('subscription', 'topup')),
  pack_id text,
  credits integer,
  payment_intent text,
  fulfilled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_checkouts_user_idx ON billing_checkouts (user_id);
CREATE UNIQUE INDEX billing_checkouts_payment_intent_key ON billing_checkouts (payment_intent) WHERE payment_intent IS NOT NULL;

-- The webhook inbox: each Stripe event once, stored before the 200; a job applies it.
CREATE TABLE billing_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  outcome text CHECK (outcome IN ('applied', 'ignored', 'refused')),
  detail text,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX billing_events_pending_idx ON billing_events (received_at) WHERE processed_at IS NULL;

-- Refunds and other money movements a person in finance should look at.
CREATE TABLE billing_finance_flags (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ref text NOT NULL UNIQUE,
  user_id uuid,
  kind text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
