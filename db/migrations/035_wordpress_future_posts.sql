-- A scheduled post is made on the site at once with WordPress's own `future` status, so wp-admin and
-- editorial calendars show it; our queue stays the watchdog that publishes it on time. wp_date is the
-- date the post was last placed at on the site by us (null: not placed there): a post whose date on
-- the site differs from it was moved in wp-admin, and our record follows.
ALTER TABLE wordpress_publications ADD COLUMN wp_date timestamptz;
