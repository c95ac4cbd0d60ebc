-- The send-email job claims its message (a short transaction), commits, sends, then marks it sent:
-- no row lock or pooled connection is held while the mail server answers. A claim older than the
-- job's expiry belongs to a process that died mid-send and may be taken over.
ALTER TABLE email_outbox
  ADD COLUMN claimed_at timestamptz,
  ADD COLUMN claim_token uuid;
