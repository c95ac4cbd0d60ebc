import type { Db } from '../../../db/client';

// The one read of result_fixes that other services make: a result's latest fix, as a column of
// the results' own queries (`r` is generation_results), so a list shows which post a fix is
// working on, or why the last one failed, without a query per row.

/** `fix`: the latest fix of result `r` as JSON (ResultFixView's fields), or null. */
export const latestFixColumn = (db: Db) => db`(
  SELECT json_build_object('id', f.id, 'kind', f.kind, 'section', f.section, 'status', f.status, 'credits', f.credits,
    'errorCode', f.error_code, 'errorParams', f.error_params, 'createdAt', f.created_at, 'finishedAt', f.finished_at)
  FROM result_fixes f WHERE f.result_id = r.id ORDER BY f.created_at DESC LIMIT 1) AS fix`;
