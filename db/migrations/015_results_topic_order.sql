-- Within a run, results are listed in topic order: newest run first, then position
-- ascending. The list's covering indexes of 011 sort position descending; these replace them with
-- the new order, so a page is still read from the index alone.

CREATE INDEX generation_results_user_created_pos_idx
  ON generation_results (user_id, created_at DESC, position ASC) INCLUDE (id);
CREATE INDEX generation_results_user_type_created_pos_idx
  ON generation_results (user_id, type, created_at DESC, position ASC) INCLUDE (id);
DROP INDEX generation_results_user_created_id_idx;
DROP INDEX generation_results_user_type_created_id_idx;
