-- Plan first: a text run may plan every post (title, outline, FAQ questions, meta description)
-- and stop there for the owner to review, before the words are written section by section.
-- A planned item keeps its credit hold open until it is written (posted) or dropped (voided).

ALTER TABLE generation_results DROP CONSTRAINT IF EXISTS generation_results_status_check;
ALTER TABLE generation_results ADD CONSTRAINT generation_results_status_check
  CHECK (status IN ('processing', 'planned', 'completed', 'failed', 'canceled'));

-- One row per item of a plan-first run: what its next job does (plan or write) and the plan the
-- owner approved (null until the first plan is made).
CREATE TABLE generation_plans (
  result_id uuid PRIMARY KEY REFERENCES generation_results (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  phase text NOT NULL DEFAULT 'plan' CHECK (phase IN ('plan', 'write')),
  plan jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX generation_plans_user_idx ON generation_plans (user_id);

-- The sections of a post being written, stored as each one is answered: a worker that dies
-- between sections leaves the finished ones here, and the next delivery writes only the rest.
CREATE TABLE generation_sections (
  result_id uuid NOT NULL REFERENCES generation_results (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  idx integer NOT NULL,
  markdown text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (result_id, attempt, idx)
);
