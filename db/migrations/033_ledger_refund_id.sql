-- A refund reversal row names the Stripe refund object (`re_…`) it books, so each refund step maps
-- to one row by what Stripe sent rather than by the running total in its key. The hash covers it
-- (ledger_canonical's third form); rows written before have it NULL and keep their hash. One row
-- per refund object: a second booking of the same refund is refused by the index.
ALTER TABLE ledger_entries ADD COLUMN stripe_refund_id text;
CREATE UNIQUE INDEX ledger_entries_stripe_refund_idx ON ledger_entries (stripe_refund_id) WHERE stripe_refund_id IS NOT NULL;
