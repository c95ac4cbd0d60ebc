-- The return page announces a paid checkout as new once: the first time it is shown, kept here.
-- Reopening the same return URL later says it was confirmed before, never that credits were added again.
ALTER TABLE billing_checkouts ADD COLUMN return_shown_at timestamptz;
