import type { Fragment } from 'postgres';
import { sql, transaction, type Db } from '../../../db/client';
import { getLogger } from '~/runtime/logger.server';
import { resultFlagged } from '../webhooks.server';
import { completeReport, contentChecks, type QualityInput, type QualityReport } from '~/utils/quality/report';
import { MIN_SHINGLES, type ClosestPost } from '~/utils/quality/shingles';
import type { QualityCheck } from '~/utils/quality/check';

// A text result's quality report, stored with it (generation_results.quality, quality_status):
// computed when the result completes (the content checks ran on the worker with the article; this
// module adds the near-duplicate lookup) and again after an edit. Owns result_shingles and
// site_post_shingles: each post's sampled shingle hashes, so the closest other post of its run or
// of its owner's sites is one indexed lookup of the post's own hashes, never a comparison with
// each post.

export type ContentChecks = { checks: QualityCheck[]; shingles: number[] };

/**
 * The post nearest this one: of its own run (by result id) or of its owner's sites' indexed
 * posts. Its similarity is the share of this post's sampled shingles found there.
 */
export async function closestPost(userId: string, resultId: string, shingles: number[], db: Db = sql): Promise<ClosestPost | null> {
  if (shingles.length < MIN_SHINGLES) return null;
  const rows = await db<{ source: 'run' | 'site'; id: string; title: string; url: string | null; shared: number }[]>`
    WITH me AS (SELECT run_id FROM generation_results WHERE id = ${resultId} AND user_id = ${userId}),
    run_hit AS (
      SELECT s.result_id, count(*)::int AS shared FROM result_shingles s
      WHERE s.run_id = (SELECT run_id FROM me) AND s.hash = ANY(${shingles}::int[]) AND s.result_id <> ${resultId}
      GROUP BY s.result_id ORDER BY shared DESC LIMIT 1),
    site_hit AS (
      SELECT s.site_id, s.wp_post_id, count(*)::int AS shared FROM site_post_shingles s
      WHERE s.user_id = ${userId} AND s.hash = ANY(${shingles}::int[])
      GROUP BY s.site_id, s.wp_post_id ORDER BY shared DESC LIMIT 1)
    SELECT 'run' AS source, r.id::text AS id, coalesce(nullif(r.title, ''), r.prompt) AS title, NULL AS url, h.shared
    FROM run_hit h JOIN generation_results r ON r.id = h.result_id
    UNION ALL
    SELECT 'site', h.site_id || ':' || h.wp_post_id, p.title, p.url, h.shared
    FROM site_hit h JOIN wordpress_site_posts p ON p.site_id = h.site_id AND p.wp_post_id = h.wp_post_id`;
  const best = rows.sort((a, b) => b.shared - a.shared)[0];
  if (!best) return null;
  return { source: best.source, id: best.id, title: best.title, url: best.url, similarity: best.shared / shingles.length };
}

/** The whole report of a post whose content checks are done: the closest post looked up and added. */
export async function reportWithDuplicates(userId: string, resultId: string, content: ContentChecks, db: Db = sql): Promise<QualityReport> {
  return completeReport(content, await closestPost(userId, resultId, content.shingles, db));
}

/** Replaces a result's indexed shingles (after it completed or was edited). */
export async function indexResultShingles(userId: string, resultId: string, shingles: number[], db: Db = sql): Promise<void> {
  await db`
    WITH gone AS (DELETE FROM result_shingles WHERE result_id = ${resultId})
    INSERT INTO result_shingles (run_id, hash, result_id)
    SELECT r.run_id, h, r.id FROM generation_results r, unnest(${shingles}::int[]) h
    WHERE r.id = ${resultId} AND r.user_id = ${userId}
    ON CONFLICT DO NOTHING`;
}

/**
 * indexResultShingles as two entries of the caller's WITH list (`shingles_gone`, `shingles_added`),
 * done only where `when` (a boolean expression of that statement) holds: a booking indexes the
 * post in the statement that completes it.
 */
export function indexShinglesWith(userId: string, resultId: string, shingles: number[], when: Fragment, db: Db): Fragment {
  return db`shingles_gone AS (DELETE FROM result_shingles WHERE result_id = ${resultId} AND ${when}),
    shingles_added AS (
      INSERT INTO result_shingles (run_id, hash, result_id)
      SELECT r.run_id, h, r.id FROM generation_results r, unnest(${shingles}::int[]) h
      WHERE r.id = ${resultId} AND r.user_id = ${userId} AND ${when}
      ON CONFLICT DO NOTHING)`;
}

/** indexResultShingles after a completion: a failure only leaves the post out of later comparisons. */
export async function indexCompletedShingles(userId: string, resultId: string, shingles: number[], db: Db = sql): Promise<void> {
  await indexResultShingles(userId, resultId, shingles, db).catch((err) =>
    getLogger().warn({ err: String(err), resultId }, 'quality: the post could not be indexed for near-duplicates'),
  );
}

type ReportRow = {
  title: string | null;
  content: string | null;
  prompt: string;
  settings: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  seoDescription: string | null;
  seoSlug: string | null;
  seoKeyword: string | null;
};

/**
 * Computes and stores a completed text result's report again (after an edit: its content or SEO
 * fields changed), and indexes its shingles anew. `seo` is what the result reads as (stored or
 * derived). Returns the report, or null for a result that has none (not a completed text).
 */
export async function recheckResult(
  userId: string,
  resultId: string,
  seo: QualityInput['seo'],
  db: Db = sql,
): Promise<QualityReport | null> {
  const [row] = await db<ReportRow[]>`
    SELECT r.title, r.content, r.prompt, g.settings, r.metadata
    FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.id = ${resultId} AND r.user_id = ${userId} AND r.type = 'text' AND r.status = 'completed'`;
  if (!row?.content) return null;
  const brief = row.metadata?.brief as { keywords?: string } | undefined;
  const content = contentChecks({
    title: row.title ?? row.prompt,
    html: row.content,
    topic: row.prompt,
    settings: row.settings ?? {},
    seo,
    keywords: brief?.keywords ?? null,
  });
  const report = await reportWithDuplicates(userId, resultId, content, db);
  await transaction(db, async (tx) => {
    // The status it had (read under the row's lock, so of two edits at once each sees the other's).
    const [row] = await tx<{ runId: string; attempt: number; was: string | null; approved: boolean }[]>`
      UPDATE generation_results r SET quality = ${tx.json(report as never)}, quality_status = ${report.status}
      FROM (SELECT id, quality_status FROM generation_results WHERE id = ${resultId} AND user_id = ${userId} FOR UPDATE) old
      WHERE r.id = old.id
      RETURNING r.run_id AS "runId", r.attempt, old.quality_status AS was, r.approved_at IS NOT NULL AS approved`;
    // Flagged now and not before: an approved post is not held, and one already failing was sent.
    if (row && report.status === 'fail' && row.was !== 'fail' && !row.approved) {
      await resultFlagged({ userId, resultId, runId: row.runId, attempt: row.attempt, cause: 'edited', report }, tx);
    }
  });
  await indexResultShingles(userId, resultId, content.shingles, db);
  return report;
}

/** Indexes a site's posts' shingles (their text as read from the site), replacing what it had. */
export async function indexSitePosts(
  userId: string,
  siteId: number,
  posts: { wpPostId: number; shingles: number[] }[],
  db: Db = sql,
): Promise<void> {
  await db`DELETE FROM site_post_shingles WHERE site_id = ${siteId}`;
  const rows = posts.flatMap((p) => p.shingles.map((hash) => ({ user_id: userId, hash, site_id: siteId, wp_post_id: p.wpPostId })));
  for (let i = 0; i < rows.length; i += 5000) {
    await db`INSERT INTO site_post_shingles ${db(rows.slice(i, i + 5000))} ON CONFLICT DO NOTHING`;
  }
}
