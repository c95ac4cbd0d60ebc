-- Posts arrive as Gutenberg blocks unless the site asks for Classic HTML (older
-- themes), and each text result carries SEO fields generated with the article (meta description,
-- slug, focus keyword; NULL on results made before: pages derive them from the title and text).
-- A publication keeps the SEO fields it sends and whether the site stored the meta ones (NULL
-- until known: the companion plugin exposes Yoast SEO's and Rank Math's keys to the REST API).
ALTER TABLE wordpress_sites ADD COLUMN classic_html boolean NOT NULL DEFAULT false;

ALTER TABLE generation_results ADD COLUMN seo_description text;
ALTER TABLE generation_results ADD COLUMN seo_slug text;
ALTER TABLE generation_results ADD COLUMN seo_keyword text;

ALTER TABLE wordpress_publications ADD COLUMN slug text NOT NULL DEFAULT '';
ALTER TABLE wordpress_publications ADD COLUMN meta_description text NOT NULL DEFAULT '';
ALTER TABLE wordpress_publications ADD COLUMN focus_keyword text NOT NULL DEFAULT '';
ALTER TABLE wordpress_publications ADD COLUMN seo_written boolean;
