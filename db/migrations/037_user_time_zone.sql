-- Each user's time zone (an IANA name): every page shows times in it and reads the dates and times
-- they pick in it, with or without JavaScript. NULL until known: the browser's zone fills it the
-- first time a page sees it, and the user can change it in the settings.
ALTER TABLE users ADD COLUMN time_zone text CHECK (time_zone IS NULL OR length(time_zone) BETWEEN 1 AND 64);
