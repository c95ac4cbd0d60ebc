-- Every dollar traceable and refunds in any order.
--
-- Ledger rows booked from Stripe carry the Stripe objects they came from, and payment rows the
-- money (currency, amount in minor units), in columns of their own. The hash chain covers them
-- (ledger_canonical's second form); rows written before this migration have them all NULL and keep
-- the hash they were written with.
ALTER TABLE ledger_entries
  ADD COLUMN stripe_event_id text,
  ADD COLUMN stripe_checkout_session_id text,
  ADD COLUMN stripe_invoice_id text,
  ADD COLUMN stripe_payment_intent_id text,
  ADD COLUMN stripe_charge_id text,
  ADD COLUMN currency text,
  ADD COLUMN amount_minor bigint CHECK (amount_minor >= 0);
CREATE INDEX ledger_entries_stripe_session_idx ON ledger_entries (stripe_checkout_session_id) WHERE stripe_checkout_session_id IS NOT NULL;
CREATE INDEX ledger_entries_stripe_invoice_idx ON ledger_entries (stripe_invoice_id) WHERE stripe_invoice_id IS NOT NULL;
CREATE INDEX ledger_entries_stripe_payment_intent_idx ON ledger_entries (stripe_payment_intent_id) WHERE stripe_payment_intent_id IS NOT NULL;
CREATE INDEX ledger_entries_stripe_charge_idx ON ledger_entries (stripe_charge_id) WHERE stripe_charge_id IS NOT NULL;

-- A refunded Pro invoice takes back the unspent part of its period's grant (monthly → issuance).
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('monthly_grant', 'monthly_expire',
  'topup_purchase', 'topup_forfeit', 'reserve', 'post', 'void', 'adjustment', 'topup_reversal', 'grant_reversal'));
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_amount_positive_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_amount_positive_check
  CHECK (amount > 0 OR kind IN ('monthly_expire', 'topup_forfeit', 'topup_reversal', 'grant_reversal'));

-- A refund that arrives before its payment is booked waits in the inbox: the booking looks its
-- refunds up by payment intent or charge. `ledger reconcile` finds events by their object's id.
CREATE INDEX billing_events_refund_payment_intent_idx ON billing_events ((payload -> 'data' -> 'object' ->> 'payment_intent'))
  WHERE type = 'charge.refunded';
CREATE INDEX billing_events_object_idx ON billing_events ((payload -> 'data' -> 'object' ->> 'id'));

-- Finance acknowledges a flag once it has looked at it (/admin/ledger).
ALTER TABLE billing_finance_flags
  ADD COLUMN acknowledged_at timestamptz,
  ADD COLUMN acknowledged_by uuid;
CREATE INDEX billing_finance_flags_open_idx ON billing_finance_flags (created_at) WHERE acknowledged_at IS NULL;
