-- Quality reports: each completed text result's report (its checks, pass/warn/fail with
-- figures) and overall status, and when its owner approved it for a gated publish. The gate itself
-- is a flag on a run and on a publication (a single, bulk or drip-planned publish).
ALTER TABLE generation_results ADD COLUMN quality jsonb;
ALTER TABLE generation_results ADD COLUMN quality_status text CHECK (quality_status IN ('pass', 'warn', 'fail'));
ALTER TABLE generation_results ADD COLUMN approved_at timestamptz;
ALTER TABLE generation_runs ADD COLUMN quality_gate boolean NOT NULL DEFAULT false;
ALTER TABLE wordpress_publications ADD COLUMN quality_gate boolean NOT NULL DEFAULT false;

-- The sampled shingle hashes of each completed text result, by run: a finishing post is compared
-- with its run's other posts by one indexed lookup of its own hashes.
CREATE TABLE result_shingles (
  run_id uuid NOT NULL REFERENCES generation_runs (id) ON DELETE CASCADE,
  hash integer NOT NULL,
  result_id uuid NOT NULL REFERENCES generation_results (id) ON DELETE CASCADE,
  PRIMARY KEY (run_id, hash, result_id)
);
CREATE INDEX result_shingles_result_idx ON result_shingles (result_id);

-- The same for a connected site's existing posts (filled when the site's posts are read), by
-- owner: a post is compared with every site of its owner without reading any post's text.
CREATE TABLE site_post_shingles (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  hash integer NOT NULL,
  site_id bigint NOT NULL,
  wp_post_id bigint NOT NULL,
  PRIMARY KEY (user_id, hash, site_id, wp_post_id),
  FOREIGN KEY (site_id, wp_post_id) REFERENCES wordpress_site_posts (site_id, wp_post_id) ON DELETE CASCADE
);
CREATE INDEX site_post_shingles_post_idx ON site_post_shingles (site_id, wp_post_id);
