-- Internal links settings. Linking costs no credits (no provider call), so it is on
-- by default; each can be switched off.

-- Per site: whether posts published to this site carry their internal links.
ALTER TABLE wordpress_sites ADD COLUMN link_enabled boolean NOT NULL DEFAULT true;

-- Per run: whether its posts are linked, how many links each gets, whether the links may point at
-- a site's existing posts, and which site (null: the user's default site when linking runs; a run
-- with no site links among its own posts, by slug). linked_at: when the proposals were last made.
ALTER TABLE generation_runs
  ADD COLUMN link_enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN link_count integer NOT NULL DEFAULT 3 CHECK (link_count BETWEEN 1 AND 10),
  ADD COLUMN link_site_posts boolean NOT NULL DEFAULT true,
  ADD COLUMN link_site_id bigint REFERENCES wordpress_sites (id) ON DELETE SET NULL,
  ADD COLUMN linked_at timestamptz;
