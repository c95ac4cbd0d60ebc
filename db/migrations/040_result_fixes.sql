-- Fixes of a completed text result (regenerate it, expand it to its length, add a missing section):
-- each one a row with its own credit hold, worked by the `result-fix` job. The result stays
-- completed while a fix runs; a fix that succeeds replaces its text, one that fails leaves it as it was.
CREATE TABLE result_fixes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  result_id uuid NOT NULL REFERENCES generation_results (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('regenerate', 'expand', 'add_section')),
  section text CHECK (section IN ('intro', 'conclusion', 'faq', 'keyTakeaways')),
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed', 'failed')),
  credits integer NOT NULL CHECK (credits > 0),
  -- The result's updated_at when the fix was asked for: an edit meanwhile wins over the fix.
  base_updated_at timestamptz NOT NULL,
  error_code text,
  error_params jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CHECK ((kind = 'add_section') = (section IS NOT NULL))
);
-- One fix at a time per result: a second click while one runs is refused, never charged.
CREATE UNIQUE INDEX result_fixes_one_running ON result_fixes (result_id) WHERE status = 'processing';
CREATE INDEX result_fixes_result_idx ON result_fixes (result_id, created_at DESC);
CREATE INDEX result_fixes_user_idx ON result_fixes (user_id);
