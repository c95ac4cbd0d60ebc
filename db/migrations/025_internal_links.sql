-- Internal links (issue 26): a connected site's published posts, read through its REST API and kept
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
