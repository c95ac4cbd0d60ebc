-- The trigram index's pending list is merged into the index by whichever statement fills it. At
-- the default 4 MB that merge took ~100 ms inside one unlucky statement, often a worker's claim
-- (every claim and every end of an item writes a new version of its row, so its search text joins
-- the list again), and the other worker's claim waited for it. A quarter of a megabyte keeps each
-- merge to a few milliseconds for the same total work.
ALTER INDEX generation_results_search_idx SET (gin_pending_list_limit = 256);
