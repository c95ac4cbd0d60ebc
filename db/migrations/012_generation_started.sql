-- A worker claims a few items more than it has provider slots for, so that a slot that frees takes
-- the next item at once. Such an item is leased but has not reached its provider yet:
-- started_at stays NULL until the worker sends it (reported with its next claim), and a cancel
-- still ends it canceled, uncharged.
ALTER TABLE generation_results ADD COLUMN started_at timestamptz;
