-- Scripting without a browser.
--
-- Personal API tokens (app/services/api-tokens.server.ts). Only a SHA-256 of the token is stored:
-- the token is 256 random bits, so a leaked hash cannot be turned back into it, and the hash is
-- looked up through its unique index on every API request. last4 lets the owner tell tokens apart.
CREATE TABLE api_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  token_hash text NOT NULL UNIQUE,
  last4 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, created_at DESC);

-- Idempotency-Key of the starting routes (app/services/idempotency.server.ts), per user, kept
-- 24 h. The row is inserted in the same transaction as the run or publication it answers, so the
-- answer is stored exactly when the work is; a second request with the key waits on that row.
CREATE TABLE idempotency_keys (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key text NOT NULL,
  fingerprint text NOT NULL,
  status integer,
  body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
