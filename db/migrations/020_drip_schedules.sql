-- Drip schedules: a site's rules (at most per_day posts a local day, inside a daily
-- window, on chosen weekdays, spread evenly or at random) in its time zone, and whether it is paused;
-- each confirmed plan (its seed, so a random spread can be planned again the same) and the
-- publications it made. Publishing itself stays the `wordpress-publish` job of each publication.

CREATE TABLE wordpress_drip_schedules (
  site_id bigint PRIMARY KEY REFERENCES wordpress_sites (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  per_day integer NOT NULL CHECK (per_day BETWEEN 1 AND 48),
  -- Minutes after local midnight: [window_start, window_end).
  window_start integer NOT NULL CHECK (window_start BETWEEN 0 AND 1439),
  window_end integer NOT NULL CHECK (window_end BETWEEN 1 AND 1440 AND window_end > window_start),
  -- 0 = Sunday … 6 = Saturday.
  weekdays smallint[] NOT NULL CHECK (cardinality(weekdays) BETWEEN 1 AND 7 AND weekdays <@ '{0,1,2,3,4,5,6}'::smallint[]),
  spread text NOT NULL CHECK (spread IN ('even', 'random')),
  time_zone text NOT NULL,
  -- Set while paused: due publications of its plans are held (stay queued), not lost.
  paused_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wordpress_drip_schedules_user_idx ON wordpress_drip_schedules (user_id);

CREATE TABLE wordpress_drip_plans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  site_id bigint REFERENCES wordpress_sites (id) ON DELETE SET NULL,
  seed integer NOT NULL,
  start_date date NOT NULL,
  -- The rules and zone it was planned with (the site's may change later).
  rules jsonb NOT NULL,
  time_zone text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE wordpress_publications ADD COLUMN drip_plan_id uuid REFERENCES wordpress_drip_plans (id) ON DELETE SET NULL;
-- A site's days (the planner counts what is already on them; the calendar reads a month).
CREATE INDEX wordpress_publications_site_time_idx ON wordpress_publications (site_id, publish_at) WHERE status IN ('queued', 'published', 'failed');
