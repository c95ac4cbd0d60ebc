-- WordPress: users' connected sites (application passwords sealed with ENCRYPTION_KEY) and the
-- publications that the `wordpress-publish` queue carries out (now or at publish_at).

CREATE TABLE wordpress_sites (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  site_url text NOT NULL,
  site_name text NOT NULL,
  username text NOT NULL,
  app_password_sealed text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wordpress_sites_user_idx ON wordpress_sites (user_id, id);
-- At most one default site per user.
CREATE UNIQUE INDEX wordpress_sites_default_key ON wordpress_sites (user_id) WHERE is_default;

CREATE TABLE wordpress_publications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- A deleted site cancels what was waiting for it; the history stays.
  site_id bigint REFERENCES wordpress_sites (id) ON DELETE SET NULL,
  site_name text NOT NULL,
  -- The result this came from (generation's results), when there is one.
  result_id text,
  title text NOT NULL,
  content text NOT NULL,
  excerpt text NOT NULL DEFAULT '',
  categories bigint[] NOT NULL DEFAULT '{}',
  tags text[] NOT NULL DEFAULT '{}',
  featured_image bytea,
  featured_image_type text,
  -- The post's status on the site: scheduled posts are created as 'publish' at their time by our queue.
  wp_status text NOT NULL DEFAULT 'publish' CHECK (wp_status IN ('publish', 'draft', 'pending')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'published', 'failed', 'canceled')),
  publish_at timestamptz NOT NULL DEFAULT now(),
  -- Stored with the post on the site (an HTML comment in its content, the media file's name) and
  -- looked up before creating, so a retried publish never makes a second post.
  marker text NOT NULL UNIQUE,
  job_id uuid,
  wp_media_id bigint,
  wp_post_id bigint,
  wp_link text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  published_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wordpress_publications_user_idx ON wordpress_publications (user_id, status, publish_at);
CREATE INDEX wordpress_publications_result_idx ON wordpress_publications (result_id) WHERE result_id IS NOT NULL;
