-- Publishing pages: the site's own time zone (read from its REST index, so scheduled
-- times can also be shown as the site sees them), the post a publication updates instead of making
-- a new one (publishing a result again, when the user chooses so), and the code of the last error
-- (WordPress's REST code or ours), so pages explain it in the user's language next to the raw text.
ALTER TABLE wordpress_sites ADD COLUMN time_zone text;
ALTER TABLE wordpress_publications ADD COLUMN update_post_id bigint;
ALTER TABLE wordpress_publications ADD COLUMN last_error_code text;
