-- Late fix-ups of internal links. A post published before the run's post it links to
-- is sent without that link; one row per (source publication, target result) waits here for the
-- target's URL, and is carried out exactly once by a `wordpress-publish` job when the target is
-- published on the same site. States: waiting (target not published there yet), queued (a job will
-- weave it in), done (in the post, or found already there), dropped (the target or the source post
-- is gone from the site, or the anchor is no longer in the post), failed (the job gave up).
CREATE TABLE wordpress_link_fixups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  publication_id uuid NOT NULL REFERENCES wordpress_publications (id) ON DELETE CASCADE,
  site_id bigint NOT NULL REFERENCES wordpress_sites (id) ON DELETE CASCADE,
  target_result_id uuid NOT NULL REFERENCES generation_results (id) ON DELETE CASCADE,
  -- The proposal it came from (gone when the run is linked again; the anchor and title are kept here).
  link_id uuid REFERENCES result_links (id) ON DELETE SET NULL,
  anchor text NOT NULL,
  target_title text NOT NULL,
  state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'queued', 'done', 'dropped', 'failed')),
  -- The target's URL when queued, and the reason a row was dropped or failed.
  target_url text,
  note text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  UNIQUE (publication_id, target_result_id)
);
CREATE INDEX wordpress_link_fixups_waiting_idx ON wordpress_link_fixups (site_id, target_result_id) WHERE state = 'waiting';
