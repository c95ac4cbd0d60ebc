-- The plan amounts the SQL grants read (ledger_reset's Free grant). db/migrate.ts writes them from
-- app/catalogue.ts on every migrate: the catalogue is the one source, this table its copy for SQL.
CREATE TABLE ledger_plans (
  plan text PRIMARY KEY CHECK (plan IN ('free', 'pro')),
  monthly_credits bigint NOT NULL CHECK (monthly_credits > 0)
);

-- Holds carry the expiry their owner sets at reserve time and extends while its work is queued or
-- running; the sweeper voids only expired holds. Holds open before this migration keep the old
-- rule (an hour after they were made).
ALTER TABLE ledger_open_holds ADD COLUMN expires_at timestamptz NOT NULL DEFAULT now() + interval '1 hour';
UPDATE ledger_open_holds SET expires_at = created_at + interval '1 hour';
CREATE INDEX ledger_open_holds_expires_at_idx ON ledger_open_holds (expires_at);
CREATE INDEX ledger_open_holds_item_idx ON ledger_open_holds (item);
DROP INDEX ledger_open_holds_created_at_idx;
