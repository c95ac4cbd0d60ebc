-- Images that load on the site. Every image of ours (generation_images) that a
-- publication carries is uploaded to the site's media library once: this table remembers the
-- upload per (site, image), so a retry, a second post with the same image or a crash after the
-- upload reuses it (the file's name also carries the image's marker, looked up on the site before
-- an upload that this table does not know of yet).
CREATE TABLE wordpress_media (
  site_id bigint NOT NULL REFERENCES wordpress_sites (id) ON DELETE CASCADE,
  image_id uuid NOT NULL REFERENCES generation_images (id) ON DELETE CASCADE,
  wp_media_id bigint NOT NULL,
  source_url text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (site_id, image_id)
);
CREATE INDEX wordpress_media_image_idx ON wordpress_media (image_id);

-- A publication makes a post (the default) or, for an image result, only puts its images into the
-- media library. The featured image chosen from a result is named by its stored image (uploaded
-- through the table above), instead of a copy of its bytes.
ALTER TABLE wordpress_publications ADD COLUMN kind text NOT NULL DEFAULT 'post' CHECK (kind IN ('post', 'media'));
ALTER TABLE wordpress_publications ADD COLUMN featured_image_id uuid REFERENCES generation_images (id) ON DELETE SET NULL;
