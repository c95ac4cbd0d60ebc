-- Bulk generation: a run (one Start press), one result row per topic, and the images we
-- keep (provider URLs expire). Every row carries its owner; every read filters on it.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE generation_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('text', 'image')),
  model text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  total integer NOT NULL CHECK (total > 0),
  canceled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX generation_runs_user_created_idx ON generation_runs (user_id, created_at DESC);

CREATE TABLE generation_results (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  run_id uuid NOT NULL REFERENCES generation_runs (id) ON DELETE CASCADE,
  position integer NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'image')),
  prompt text NOT NULL,
  title text,
  -- Sanitized HTML for text; our own image URL for images.
  content text,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed', 'failed', 'canceled')),
  error text,
  model text NOT NULL,
  -- originalPrompt, translatedPrompt, settings, images (ids), usage...
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The credit hold of the current attempt is `result:{id}:attempt:{attempt}`; a retry opens a new one.
  attempt integer NOT NULL DEFAULT 1,
  credits integer NOT NULL CHECK (credits > 0),
  -- Times a worker has claimed the current attempt (a crash redelivers it; too many ends it failed).
  deliveries integer NOT NULL DEFAULT 0,
  -- A worker holds the item until lease_until (extended while it works); the per-user concurrency
  -- counts live leases. A lease left by a killed worker simply expires.
  lease_until timestamptz,
  -- title + prompt + the article's text, for search (written by the service, not shown).
  search_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  UNIQUE (run_id, position)
);
-- The results list: newest first per owner, optionally per type.
CREATE INDEX generation_results_user_created_idx ON generation_results (user_id, created_at DESC, position DESC);
CREATE INDEX generation_results_user_type_created_idx ON generation_results (user_id, type, created_at DESC, position DESC);
CREATE INDEX generation_results_run_status_idx ON generation_results (run_id, status);
-- Live leases per user (the concurrency cap): only items being worked on are in it.
CREATE INDEX generation_results_leased_idx ON generation_results (user_id) WHERE lease_until IS NOT NULL;
-- Substring search over title, prompt and text (ILIKE '%term%'), fast with 100,000 results.
CREATE INDEX generation_results_search_idx ON generation_results USING gin (search_text gin_trgm_ops);

CREATE TABLE generation_images (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  result_id uuid REFERENCES generation_results (id) ON DELETE CASCADE,
  -- Which output of the item (numOutputs > 1), and the attempt that made it (a redelivery reuses it).
  attempt integer NOT NULL DEFAULT 1,
  idx integer NOT NULL DEFAULT 0,
  content_type text NOT NULL,
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (result_id, attempt, idx)
);
CREATE INDEX generation_images_user_idx ON generation_images (user_id);
