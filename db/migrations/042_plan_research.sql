-- Research for a plan: when the operator configures a search API, the plan step reads the top
-- results for the topic. What it found is kept beside the plan (not in it, so the owner's edits
-- of the plan leave it alone): how the research went, and the sources the written post cites.
-- `research` is null when no search API was configured at planning time; 'found' with the sources
-- kept, 'empty' when the search found nothing usable, 'failed' when the search could not be used
-- (the plan was made without research).

ALTER TABLE generation_plans
  ADD COLUMN research text CHECK (research IN ('found', 'empty', 'failed')),
  ADD COLUMN sources jsonb NOT NULL DEFAULT '[]'::jsonb;
