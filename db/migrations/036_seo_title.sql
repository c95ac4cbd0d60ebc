-- The SEO title (at most 60 characters, what search results show instead of the post's title) of a
-- text result, and of a publication as it was queued. NULL on a result made before: derived from its
-- title when read.
ALTER TABLE generation_results ADD COLUMN seo_title text;
ALTER TABLE wordpress_publications ADD COLUMN seo_title text NOT NULL DEFAULT '';
