-- Results list speed with 100,000 results per user: the list's indexes carry the id, so
-- a page (and a deep OFFSET) is read from the index alone, and the count stops at a cap (see
-- results.server.ts). They replace the indexes of 005 (same keys, plus INCLUDE (id)).

CREATE INDEX generation_results_user_created_id_idx
  ON generation_results (user_id, created_at DESC, position DESC) INCLUDE (id);
CREATE INDEX generation_results_user_type_created_id_idx
  ON generation_results (user_id, type, created_at DESC, position DESC) INCLUDE (id);
DROP INDEX generation_results_user_created_idx;
DROP INDEX generation_results_user_type_created_idx;
