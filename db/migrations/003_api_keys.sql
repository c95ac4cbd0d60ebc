-- Users' own provider keys, sealed with ENCRYPTION_KEY (app/services/secrets.server.ts). A user's
-- key wins over the operator's OPENROUTER_API_KEY / REPLICATE_API_TOKEN.
CREATE TABLE user_api_keys (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider IN ('openrouter', 'replicate')),
  sealed text NOT NULL,
  last4 text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, provider)
);
