-- Internal links: a connected site's published posts, read through its REST API and kept
-- per site as link targets (refreshed on demand, bounded by LINK_SOURCE_MAX_POSTS).

CREATE TABLE wordpress_site_posts (
  site_id bigint NOT NULL REFERENCES wordpress_sites (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  wp_post_id bigint NOT NULL,
  title text NOT NULL,
  url text NOT NULL,
  categories text[] NOT NULL DEFAULT '{}',
  tags text[] NOT NULL DEFAULT '{}',
  excerpt text NOT NULL DEFAULT '',
  PRIMARY KEY (site_id, wp_post_id)
);
CREATE INDEX wordpress_site_posts_user_idx ON wordpress_site_posts (user_id, site_id);

-- When the cache was last filled (null: never read).
ALTER TABLE wordpress_sites ADD COLUMN posts_refreshed_at timestamptz;

-- The links proposed for a result: where each goes, on which words of which
-- sentence, and why (its score). The result's own content is not changed: the links are woven in
-- from these rows (less the removed ones) when it is shown or published. A removed link keeps its
-- row (removed_at), so linking the run again never proposes it again.
CREATE TABLE result_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  result_id uuid NOT NULL REFERENCES generation_results (id) ON DELETE CASCADE,
  position integer NOT NULL,
  target_key text NOT NULL,
  target_result_id uuid REFERENCES generation_results (id) ON DELETE CASCADE,
  target_url text,
  target_slug text,
  target_title text NOT NULL,
  anchor text NOT NULL,
  sentence text NOT NULL,
  score double precision NOT NULL,
  removed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (result_id, target_key)
);
CREATE INDEX result_links_user_result_idx ON result_links (user_id, result_id);
