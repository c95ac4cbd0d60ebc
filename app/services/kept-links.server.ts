import { sql, type Db } from '../../db/client';

// The links a user kept in their results, as downloads list them. A read of the link service's
// result_links on its own, so the results service can list them without depending on the link
// service (which depends on WordPress, which lists results).

export type KeptLink = { anchor: string; href: string };

/**
 * The kept links of these results, in order, as a download lists them: the absolute URL when known,
 * else (a run with no site) the planned relative `/slug/` for the user to map to their site later.
 * Removed links are never in it.
 */
export async function keptLinksOf(userId: string, resultIds: string[], db: Db = sql): Promise<Map<string, KeptLink[]>> {
  const out = new Map<string, KeptLink[]>();
  if (resultIds.length === 0) return out;
  const rows = await db<{ result_id: string; anchor: string; target_url: string | null; target_slug: string | null }[]>`
    SELECT result_id, anchor, target_url, target_slug FROM result_links
    WHERE user_id = ${userId} AND result_id = ANY (${resultIds}::uuid[]) AND removed_at IS NULL AND (target_url IS NOT NULL OR target_slug IS NOT NULL)
    ORDER BY result_id, position`;
  for (const r of rows) {
    const list = out.get(r.result_id) ?? [];
    list.push({ anchor: r.anchor, href: r.target_url ?? `/${r.target_slug}/` });
    out.set(r.result_id, list);
  }
  return out;
}
