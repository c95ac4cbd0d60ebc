-- Signed outgoing webhooks: an owner's endpoints, the events (the outbox: written in the
-- transaction of the change that causes them) and one delivery per event and endpoint, retried
-- with backoff by the webhook-deliver queue. Every row carries its owner; every read filters on it.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) <= 2048),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  -- The signing secret (whsec_...), sealed with ENCRYPTION_KEY; shown once, at creation or rotation.
  secret_sealed text NOT NULL,
  secret_hint text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_at timestamptz,
  -- Since when every delivery has failed (NULL after a success); three days of it disable the endpoint.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user_idx ON webhook_endpoints (user_id, created_at);

CREATE TABLE webhook_events (
  -- msg_...: the webhook-id header, the same on every retry of every delivery of the event.
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL,
  -- Names the business fact (e.g. run.completed:{runId}): a fact replayed by a retried job is one event.
  dedupe_key text UNIQUE,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- An attempt in flight holds the delivery until claimed_until (a crashed one lets the next take it).
  claimed_until timestamptz,
  last_status integer,
  last_latency_ms integer,
  last_error text,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, endpoint_id)
);
-- The delivery log of an endpoint, newest first.
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC);
