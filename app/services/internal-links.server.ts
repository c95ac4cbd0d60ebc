import { sql, transaction, type Db } from '../../db/client';
import { env } from '~/runtime/env.server';
import type { WpCallOptions } from './wordpress/client.server';
import { listPublishedPosts } from './wordpress/client-content.server';
import { indexSitePosts } from './quality/report.server';
import { shingleHashes } from '~/utils/quality/shingles';
import { weaveLinks } from '~/utils/link-weaver';
import { LINK_COUNT_MAX } from '~/utils/link-schemas';
import { seoWithFallbacks } from '~/utils/seo-fields';
import { WordPressServiceError } from './wordpress/errors.server';
import { siteCredentials } from './wordpress/sites.server';
import { singleton } from '~/runtime/singleton.server';
import { getLogger } from '~/runtime/logger.server';
import { enqueue } from '~/queue/boss';
import type { RunLinkSettingsInput } from '~/utils/link-schemas';
import { errors as generationErrors, isUuid } from './generation/rules.server';

// Internal links: where links can point (a site's published posts, cached here, and the
// other results of the same run) and which of them each post should link to. No provider call:
// choosing and weaving cost no credits.

// ---------------------------------------------------------------------------------------------
// Link sources: a site's published posts

export type SitePost = { wpPostId: number; title: string; url: string; categories: string[]; tags: string[]; excerpt: string };

/**
 * Reads the site's published posts again (newest first, at most LINK_SOURCE_MAX_POSTS) and replaces
 * its cached list. The REST calls run outside any transaction; the swap is one transaction under
 * the site row's lock, so two refreshes at once leave one whole list, never a mix. Presses that
 * arrive while a read of the same site is under way in this process share that read (the page's
 * button, the API and a run's linking job), so a burst of them costs the site one read.
 */
export function refreshSitePosts(
  userId: string,
  siteId: number,
  opts: WpCallOptions & { limit?: number } = {},
  db: Db = sql,
): Promise<number> {
  const key = `${userId}:${siteId}:${opts.limit ?? ''}`;
  const running = refreshesUnderWay.get(key);
  if (running) return running;
  const read = readSitePosts(userId, siteId, opts, db).finally(() => refreshesUnderWay.delete(key));
  refreshesUnderWay.set(key, read);
  return read;
}

const refreshesUnderWay = singleton('internal-links:refreshes', () => new Map<string, Promise<number>>());

async function readSitePosts(userId: string, siteId: number, opts: WpCallOptions & { limit?: number }, db: Db): Promise<number> {
  const site = await siteCredentials(userId, siteId, db);
  const { limit = env.LINK_SOURCE_MAX_POSTS, ...callOpts } = opts;
  const posts = await listPublishedPosts(site, limit, callOpts);
  await transaction(db, async (tx) => {
    const [row] = await tx`SELECT id FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId} FOR UPDATE`;
    if (!row) throw new WordPressServiceError('not_found');
    await tx`DELETE FROM wordpress_site_posts WHERE site_id = ${siteId}`;
    const seen = new Set<number>();
    const rows = posts
      .filter((p) => !seen.has(p.id) && seen.add(p.id))
      .map((p) => ({
        site_id: siteId,
        user_id: userId,
        wp_post_id: p.id,
        title: p.title,
        url: p.url,
        categories: p.categories,
        tags: p.tags,
        excerpt: p.excerpt,
      }));
    for (let i = 0; i < rows.length; i += 500) {
      await tx`INSERT INTO wordpress_site_posts ${tx(rows.slice(i, i + 500))}`;
    }
    // Their shingles too, so a new post is checked against the site's posts for near-duplicates.
    const kept = new Set(rows.map((r) => r.wp_post_id));
    await indexSitePosts(
      userId,
      siteId,
      posts.filter((p) => kept.delete(p.id)).map((p) => ({ wpPostId: p.id, shingles: shingleHashes(p.text) })),
      tx,
    );
    await tx`UPDATE wordpress_sites SET posts_refreshed_at = now() WHERE id = ${siteId}`;
  });
  return posts.length;
}

export type SitePostsSummary = { siteId: number; count: number; refreshedAt: Date | null };

/** For each of the user's sites: how many posts are cached as link targets and when they were read. */
export async function sitePostsSummary(userId: string, db: Db = sql): Promise<SitePostsSummary[]> {
  const rows = await db<{ id: string; n: number; posts_refreshed_at: Date | null }[]>`
    SELECT s.id, s.posts_refreshed_at, (SELECT count(*)::int FROM wordpress_site_posts p WHERE p.site_id = s.id) AS n
    FROM wordpress_sites s WHERE s.user_id = ${userId} ORDER BY s.id`;
  return rows.map((r) => ({ siteId: Number(r.id), count: r.n, refreshedAt: r.posts_refreshed_at }));
}

/** The cached posts of one of the user's sites and when they were read (null: never). */
export async function sitePosts(userId: string, siteId: number, db: Db = sql): Promise<{ refreshedAt: Date | null; posts: SitePost[] }> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('not_found');
  const [site] = await db<{ posts_refreshed_at: Date | null }[]>`
    SELECT posts_refreshed_at FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
  if (!site) throw new WordPressServiceError('not_found');
  const rows = await db<{ wp_post_id: string; title: string; url: string; categories: string[]; tags: string[]; excerpt: string }[]>`
    SELECT wp_post_id, title, url, categories, tags, excerpt FROM wordpress_site_posts
    WHERE user_id = ${userId} AND site_id = ${siteId} ORDER BY wp_post_id DESC`;
  return {
    refreshedAt: site.posts_refreshed_at,
    posts: rows.map((r) => ({ ...r, wpPostId: Number(r.wp_post_id) })),
  };
}

// ---------------------------------------------------------------------------------------------
// Choosing targets

/** A URL slug from a title, as WordPress makes one (letters of any script kept, the rest dashes). */
export function slugFromTitle(title: string): string {
  return (
    title
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 190) || 'post'
  );
}

export type LinkCandidate = {
  /** `result:<id>` or `site:<wp post id>`: stable, and the tie-break of equal scores. */
  key: string;
  kind: 'result' | 'site_post';
  resultId: string | null;
  title: string;
  /** Absolute URL when known (a site post, a result published or planned on a site); else null. */
  url: string | null;
  /** The planned slug of a result (relative, for runs with no site). */
  slug: string | null;
  tags: string[];
  categories: string[];
  score: number;
};

/**
 * For each completed text result of the run, up to `count` link targets, best first: the run's other
 * results and, with `siteId`, the site's cached posts.
 *
 * The score uses Postgres full-text search, deterministic and free. Postgres parses and stems
 * (to_tsvector 'english': stop words dropped, "recipes" = "recipe") the *candidate's* subject (title,
 * tags, categories) and the *source* post (title, then prompt and text). Score = the sum, over the
 * candidate's lexemes found in the source, of ln(1 + N/df) (df: how many of the N candidates have that
 * lexeme), times 3 when it is in the source's title. It asks "how much does this post talk about
 * that one", which also makes a phrase to link on likely to be in its sentences. Plain ts_rank was
 * tried first and dropped: it has no document frequency, so a word every title of a run shares
 * ("guide", "revisited") outranked the subject, and it divides by the query's length, so site posts
 * with many tags lost to bare titles. Equal scores fall back to the candidate's key, so the same data
 * always gives the same choice. Never the post itself, never the same URL twice (a run result
 * already published on the site is not also a site post).
 */
export async function chooseTargets(
  userId: string,
  runId: string,
  options: { count?: number; siteId?: number | null } = {},
  db: Db = sql,
): Promise<Map<string, LinkCandidate[]>> {
  const count = Math.max(0, Math.min(20, Math.floor(options.count ?? 3)));
  const siteId = options.siteId ?? null;
  let siteUrl: string | null = null;
  if (siteId !== null) {
    if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('not_found');
    const [site] = await db<{ site_url: string }[]>`SELECT site_url FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
    if (!site) throw new WordPressServiceError('not_found');
    siteUrl = site.site_url.replace(/\/+$/, '');
  }
  const results = await db<{ id: string; title: string | null; prompt: string; seo_slug: string | null; wp_link: string | null }[]>`
    SELECT r.id, r.title, r.prompt, r.seo_slug,
      (SELECT p.wp_link FROM wordpress_publications p
        WHERE p.user_id = ${userId} AND p.result_id = r.id::text AND p.site_id = ${siteId} AND p.status = 'published' AND p.wp_link IS NOT NULL
        ORDER BY p.published_at DESC LIMIT 1) AS wp_link
    FROM generation_results r
    WHERE r.user_id = ${userId} AND r.run_id = ${runId} AND r.type = 'text' AND r.status = 'completed'
    ORDER BY r.position`;
  const out = new Map<string, LinkCandidate[]>();
  for (const r of results) out.set(r.id, []);
  if (results.length === 0 || count === 0) return out;

  // Planned slugs: unique within the run (a repeated title gets -2, -3... as WordPress would).
  const taken = new Map<string, number>();
  const planned = results.map((r) => {
    // The slug publishing will send (the result's SEO slug), else one made from the title.
    const base = r.seo_slug?.trim() || slugFromTitle(r.title ?? r.prompt);
    const n = (taken.get(base) ?? 0) + 1;
    taken.set(base, n);
    const slug = n === 1 ? base : `${base}-${n}`;
    const url = r.wp_link ?? (siteUrl ? `${siteUrl}/${encodeURIComponent(slug)}/` : null);
    return { id: r.id, title: r.title ?? r.prompt, slug, url };
  });
  const ownUrls = planned.map((p) => p.url).filter((u): u is string => u !== null);

  const rows = await db<
    {
      source_id: string;
      key: string;
      result_id: string | null;
      title: string;
      url: string | null;
      slug: string | null;
      tags: string[];
      categories: string[];
      score: number;
    }[]
  >`
    WITH src AS (
      SELECT r.id, setweight(to_tsvector('english', coalesce(r.title, '')), 'A') || to_tsvector('english', r.search_text) AS doc
      FROM generation_results r
      WHERE r.user_id = ${userId} AND r.run_id = ${runId} AND r.type = 'text' AND r.status = 'completed'
    ),
    planned AS (
      SELECT * FROM jsonb_to_recordset(${db.json(planned as never)}::jsonb) AS x (id uuid, title text, slug text, url text)
    ),
    cand AS (
      SELECT 'result:' || p.id AS key, p.id AS result_id, p.title, p.url, p.slug, '{}'::text[] AS tags, '{}'::text[] AS categories
      FROM planned p
      UNION ALL
      SELECT 'site:' || lpad(s.wp_post_id::text, 20, '0'), NULL, s.title, s.url, NULL, s.tags, s.categories
      FROM wordpress_site_posts s
      WHERE s.user_id = ${userId} AND s.site_id = ${siteId} AND NOT (s.url = ANY (${ownUrls}::text[]))
    ),
    -- Each candidate's subject as stemmed lexemes, and in how many candidates each lexeme occurs.
    cand_lex AS (
      SELECT DISTINCT c.key, l.lexeme
      FROM cand c,
        unnest(to_tsvector('english', c.title || ' ' || array_to_string(c.tags, ' ') || ' ' || array_to_string(c.categories, ' '))) AS l
    ),
    df AS (SELECT lexeme, count(*)::float8 AS n FROM cand_lex GROUP BY lexeme),
    total AS (SELECT count(*)::float8 AS n FROM cand),
    src_lex AS (
      SELECT s.id, l.lexeme, bool_or('A' = ANY (l.weights)) AS in_title FROM src s, unnest(s.doc) AS l GROUP BY s.id, l.lexeme
    ),
    scored AS (
      SELECT s.id AS source_id, cl.key,
        sum(ln(1 + total.n / df.n) * CASE WHEN s.in_title THEN 3 ELSE 1 END)::float8 AS score
      FROM src_lex s
      JOIN cand_lex cl ON cl.lexeme = s.lexeme
      JOIN df ON df.lexeme = cl.lexeme
      CROSS JOIN total
      GROUP BY s.id, cl.key
    ),
    ranked AS (
      SELECT sc.source_id, c.key, c.result_id, c.title, c.url, c.slug, c.tags, c.categories, sc.score,
        row_number() OVER (PARTITION BY sc.source_id ORDER BY sc.score DESC, c.key) AS n
      FROM scored sc JOIN cand c ON c.key = sc.key
      WHERE c.result_id IS DISTINCT FROM sc.source_id
    )
    SELECT source_id, key, result_id, title, url, slug, tags, categories, score FROM ranked WHERE n <= ${count}
    ORDER BY source_id, n`;
  for (const r of rows) {
    out.get(r.source_id)?.push({
      key: r.key,
      kind: r.result_id ? 'result' : 'site_post',
      resultId: r.result_id,
      title: r.title,
      url: r.url,
      slug: r.slug,
      tags: r.tags,
      categories: r.categories,
      score: r.score,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Linking a run: choose, weave, store the proposals

/** The words a link to this candidate may stand on, best first: its title, tags, categories, then parts of its title. */
export function phrasesOf(c: Pick<LinkCandidate, 'title' | 'tags' | 'categories'>): string[] {
  const words = c.title.split(/[\s:;,.!?()"“”]+/).filter(Boolean);
  const grams: string[] = [];
  // Parts of the title that start and end on a content word ("green tea", not "at home" or "Guide 3").
  const content = (w: string) => [...w].length >= 4 || /\p{Script=Han}/u.test(w);
  for (const n of [3, 2]) {
    for (let i = 0; i + n <= words.length; i++) {
      if (content(words[i]!) && content(words[i + n - 1]!)) grams.push(words.slice(i, i + n).join(' '));
    }
  }
  // Single words only when long enough to name a subject ("espresso", not "tips").
  const singles = words.filter((w) => [...w].length >= 5 || /\p{Script=Han}/u.test(w));
  const seen = new Set<string>();
  return [c.title, ...c.tags, ...c.categories, ...grams, ...singles].filter((p) => {
    const key = p.trim().toLowerCase();
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type ResultLink = {
  id: string;
  resultId: string;
  position: number;
  targetKey: string;
  targetResultId: string | null;
  targetUrl: string | null;
  targetSlug: string | null;
  targetTitle: string;
  anchor: string;
  sentence: string;
  score: number;
  removedAt: Date | null;
};

// A run with no site links by slug; the weaver needs an absolute URL to place a link, so placement
// uses this stand-in (never stored in any content) and the row keeps the slug.
const SLUG_BASE = 'https://slug.invalid/';
const placementUrl = (c: { url: string | null; slug: string | null; key: string }) =>
  c.url ?? `${SLUG_BASE}${encodeURIComponent(c.slug ?? c.key)}/`;

/**
 * Links every completed text post of the run: chooses its targets, finds where each goes in its
 * sentences, and replaces the post's proposals. Removed links stay removed (their targets are not
 * offered again). One run at a time (the run row's lock), so two presses give one set of proposals.
 * No provider call: it costs no credits. Returns the number of links proposed.
 */
export async function linkRun(
  userId: string,
  runId: string,
  options: { count?: number; siteId?: number | null; resultId?: string } = {},
  db: Db = sql,
): Promise<number> {
  const count = Math.max(0, Math.min(20, Math.floor(options.count ?? 3)));
  return transaction(db, async (tx) => {
    const [run] = await tx`SELECT id FROM generation_runs WHERE user_id = ${userId} AND id = ${runId} FOR UPDATE`;
    if (!run) throw new WordPressServiceError('not_found');
    const removed = await tx<{ result_id: string; target_key: string }[]>`
      SELECT l.result_id, l.target_key FROM result_links l JOIN generation_results r ON r.id = l.result_id
      WHERE l.user_id = ${userId} AND r.run_id = ${runId} AND l.removed_at IS NOT NULL`;
    const removedKeys = new Set(removed.map((r) => `${r.result_id} ${r.target_key}`));
    // More candidates than links: some have no phrase in the text, some were removed.
    const chosen = await chooseTargets(userId, runId, { count: count * 4, siteId: options.siteId }, tx);
    // One post (re-run for a post) or all of them.
    const sources = [...chosen.keys()].filter((id) => options.resultId === undefined || id === options.resultId);
    const contents = await tx<{ id: string; content: string | null }[]>`
      SELECT id, content FROM generation_results WHERE user_id = ${userId} AND run_id = ${runId} AND id = ANY (${sources}::uuid[])`;
    let total = 0;
    for (const { id, content } of contents) {
      const candidates = (chosen.get(id) ?? []).filter((c) => !removedKeys.has(`${id} ${c.key}`));
      const byUrl = new Map(candidates.map((c) => [placementUrl(c), c]));
      const { links } = weaveLinks(
        content ?? '',
        candidates.map((c) => ({ url: placementUrl(c), title: c.title, phrases: phrasesOf(c) })),
        { maxLinks: count },
      );
      await tx`DELETE FROM result_links WHERE user_id = ${userId} AND result_id = ${id} AND removed_at IS NULL`;
      const rows = links.map((l, position) => {
        const c = byUrl.get(l.url)!;
        return {
          user_id: userId,
          result_id: id,
          position,
          target_key: c.key,
          target_result_id: c.resultId,
          target_url: c.url,
          target_slug: c.slug,
          target_title: c.title,
          anchor: l.anchor,
          sentence: l.sentence,
          score: c.score,
        };
      });
      if (rows.length > 0) await tx`INSERT INTO result_links ${tx(rows)}`;
      total += rows.length;
    }
    if (options.resultId === undefined) await tx`UPDATE generation_runs SET linked_at = now() WHERE id = ${runId}`;
    return total;
  });
}

// ---------------------------------------------------------------------------------------------
// Settings per run (migration 026)

export type RunLinkSettings = {
  enabled: boolean;
  /** Links per post, 1-10. */
  count: number;
  /** Whether links may point at the site's existing posts (else only at the run's own posts). */
  sitePosts: boolean;
  /** The site the run links against; null: the user's default site when linking runs. */
  siteId: number | null;
  linkedAt: Date | null;
};

export { LINK_COUNT_MAX };

/** The run's linking settings, for its owner only. */
export async function runLinkSettings(userId: string, runId: string, db: Db = sql): Promise<RunLinkSettings> {
  const [run] = await db<
    { link_enabled: boolean; link_count: number; link_site_posts: boolean; link_site_id: string | null; linked_at: Date | null }[]
  >`
    SELECT link_enabled, link_count, link_site_posts, link_site_id, linked_at FROM generation_runs WHERE user_id = ${userId} AND id = ${runId}`;
  if (!run) throw new WordPressServiceError('not_found');
  return {
    enabled: run.link_enabled,
    count: run.link_count,
    sitePosts: run.link_site_posts,
    siteId: run.link_site_id === null ? null : Number(run.link_site_id),
    linkedAt: run.linked_at,
  };
}

/** Saves the run's linking settings (the site must be the user's own). */
export async function saveRunLinkSettings(
  userId: string,
  runId: string,
  input: Omit<RunLinkSettings, 'linkedAt'>,
  db: Db = sql,
): Promise<RunLinkSettings> {
  const count = Math.max(1, Math.min(LINK_COUNT_MAX, Math.floor(input.count)));
  if (input.siteId !== null) {
    const [site] = await db`SELECT 1 FROM wordpress_sites WHERE user_id = ${userId} AND id = ${input.siteId}`;
    if (!site) throw new WordPressServiceError('not_found');
  }
  const [run] = await db`
    UPDATE generation_runs SET link_enabled = ${input.enabled}, link_count = ${count}, link_site_posts = ${input.sitePosts},
      link_site_id = ${input.siteId}
    WHERE user_id = ${userId} AND id = ${runId} RETURNING id`;
  if (!run) throw new WordPressServiceError('not_found');
  return runLinkSettings(userId, runId, db);
}

/**
 * Links the run (or one of its posts) as its settings say: the chosen site, else the user's default
 * site, when site posts are wanted; with linking off, its kept proposals are withdrawn (removed ones
 * stay recorded). The one entry point for the review page, the API and linking a finished run.
 */
export async function linkRunBySettings(userId: string, runId: string, options: { resultId?: string } = {}, db: Db = sql): Promise<number> {
  const settings = await runLinkSettings(userId, runId, db);
  if (!settings.enabled) {
    await db`
      DELETE FROM result_links l USING generation_results r
      WHERE l.result_id = r.id AND r.run_id = ${runId} AND l.user_id = ${userId} AND l.removed_at IS NULL
        AND (${options.resultId ?? null}::uuid IS NULL OR l.result_id = ${options.resultId ?? null})`;
    return 0;
  }
  const siteId = await linkSiteOf(userId, settings, db);
  return linkRun(userId, runId, { count: settings.count, siteId, resultId: options.resultId }, db);
}

/** The site whose posts the run links to: its chosen one, else the user's default; null for none. */
async function linkSiteOf(userId: string, settings: RunLinkSettings, db: Db): Promise<number | null> {
  if (!settings.sitePosts) return null;
  if (settings.siteId !== null) return settings.siteId;
  const [site] = await db<{ id: string }[]>`
    SELECT id FROM wordpress_sites WHERE user_id = ${userId} AND is_default ORDER BY id LIMIT 1`;
  return site ? Number(site.id) : null;
}

// ---------------------------------------------------------------------------------------------
// Linking a run when it finishes (the `link-run` queue)

/**
 * Called after an item of a run has ended (its final state committed): when that was the run's
 * last item processing, the run is a text run with linking on and has a completed post, its
 * linking job is enqueued. Each ending item checks after its own commit, so the last one to commit
 * sees every other one ended; two that see it at once enqueue one job (singleton key per run).
 */
export async function linkWhenRunEnds(userId: string, of: { resultId: string } | { runId: string }, db: Db = sql): Promise<boolean> {
  const [run] = await db<{ id: string }[]>`
    SELECT g.id FROM generation_runs g
    WHERE g.user_id = ${userId} AND g.type = 'text' AND g.link_enabled
      AND g.id = ${'runId' in of ? of.runId : db`(SELECT run_id FROM generation_results WHERE id = ${of.resultId})`}
      AND NOT EXISTS (SELECT 1 FROM generation_results x WHERE x.run_id = g.id AND x.status = 'processing')
      AND EXISTS (SELECT 1 FROM generation_results x WHERE x.run_id = g.id AND x.status = 'completed' AND x.type = 'text')`;
  if (!run) return false;
  await enqueue('link-run', { userId, runId: run.id }, { singletonKey: run.id }, db);
  return true;
}

/**
 * linkWhenRunEnds for the items a worker saw end since its last check, in one statement: the runs
 * among theirs that ended, are text runs with linking on and have a completed post get their
 * linking job. Each item's check starts after its end was committed, as with linkWhenRunEnds.
 */
export async function linkWhenRunsEnd(items: { userId: string; resultId: string }[], db: Db = sql): Promise<number> {
  if (items.length === 0) return 0;
  const runs = await db<{ id: string; userId: string }[]>`
    SELECT DISTINCT g.id, g.user_id AS "userId"
    FROM unnest(${items.map((i) => i.resultId)}::uuid[], ${items.map((i) => i.userId)}::uuid[]) AS e(result_id, user_id)
    JOIN generation_results r ON r.id = e.result_id
    JOIN generation_runs g ON g.id = r.run_id AND g.user_id = e.user_id
    WHERE g.type = 'text' AND g.link_enabled
      AND NOT EXISTS (SELECT 1 FROM generation_results x WHERE x.run_id = g.id AND x.status = 'processing')
      AND EXISTS (SELECT 1 FROM generation_results x WHERE x.run_id = g.id AND x.status = 'completed' AND x.type = 'text')`;
  for (const run of runs) await enqueue('link-run', { userId: run.userId, runId: run.id }, { singletonKey: run.id }, db);
  return runs.length;
}

export type FinishedRunLinking = { linked: boolean; links: number; siteId: number | null; siteRead: 'cached' | 'read' | 'failed' | null };

/**
 * The linking job of a finished run: links it as its settings say, unless linking is off or the
 * run was linked after its last post was completed (a replayed job, or the user linked it by hand
 * since). The site's posts are read first when they never were; when the site cannot be read
 * (down, refused), linking goes on without them: the run's posts link among themselves.
 */
export async function linkFinishedRun(userId: string, runId: string, db: Db = sql): Promise<FinishedRunLinking> {
  const [run] = await db<{ linked_at: Date | null; last_completed: Date | null }[]>`
    SELECT g.linked_at,
      (SELECT max(x.completed_at) FROM generation_results x WHERE x.run_id = g.id AND x.status = 'completed' AND x.type = 'text')
        AS last_completed
    FROM generation_runs g WHERE g.user_id = ${userId} AND g.id = ${runId}`;
  const settings = run ? await runLinkSettings(userId, runId, db) : null;
  if (!run || !settings?.enabled || !run.last_completed || (run.linked_at && run.linked_at >= run.last_completed)) {
    return { linked: false, links: 0, siteId: null, siteRead: null };
  }
  const siteId = await linkSiteOf(userId, settings, db);
  let siteRead: FinishedRunLinking['siteRead'] = null;
  if (siteId !== null) {
    const [site] = await db<{ posts_refreshed_at: Date | null }[]>`
      SELECT posts_refreshed_at FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
    siteRead = site?.posts_refreshed_at ? 'cached' : 'read';
    if (site && !site.posts_refreshed_at) {
      try {
        await refreshSitePosts(userId, siteId, {}, db);
      } catch (err) {
        siteRead = 'failed';
        getLogger().warn({ err: String(err), runId, siteId }, 'internal links: the site posts could not be read; linking within the run');
      }
    }
  }
  const links = await linkRunBySettings(userId, runId, {}, db);
  return { linked: true, links, siteId, siteRead };
}

type LinkRow = {
  id: string;
  result_id: string;
  position: number;
  target_key: string;
  target_result_id: string | null;
  target_url: string | null;
  target_slug: string | null;
  target_title: string;
  anchor: string;
  sentence: string;
  score: number;
  removed_at: Date | null;
};
const toLink = (r: LinkRow): ResultLink => ({
  id: r.id,
  resultId: r.result_id,
  position: r.position,
  targetKey: r.target_key,
  targetResultId: r.target_result_id,
  targetUrl: r.target_url,
  targetSlug: r.target_slug,
  targetTitle: r.target_title,
  anchor: r.anchor,
  sentence: r.sentence,
  score: r.score,
  removedAt: r.removed_at,
});

/** A result's proposed links in order (removed ones too, marked), for its owner only. */
export async function resultLinks(userId: string, resultId: string, db: Db = sql): Promise<ResultLink[]> {
  const rows = await db<LinkRow[]>`
    SELECT id, result_id, position, target_key, target_result_id, target_url, target_slug, target_title, anchor, sentence, score, removed_at
    FROM result_links WHERE user_id = ${userId} AND result_id = ${resultId} ORDER BY removed_at NULLS FIRST, position`;
  return rows.map(toLink);
}

/** Removes one proposed link (idempotent); it is never proposed again for that post. */
export async function removeLink(userId: string, linkId: string, db: Db = sql): Promise<void> {
  const [row] = await db`
    UPDATE result_links SET removed_at = coalesce(removed_at, now()) WHERE user_id = ${userId} AND id = ${linkId} RETURNING id`;
  if (!row) throw new WordPressServiceError('not_found');
}

/**
 * The result's content with its kept links woven in at their proposed URLs (those with an absolute
 * URL: a slug-only link waits for its URL), as the app would show it; removed links are never in it.
 * Publishing does not use it: it resolves each link for the site first (wordpress/links.server.ts).
 */
export async function linkedContent(userId: string, resultId: string, db: Db = sql): Promise<string> {
  const [result] = await db<{ content: string | null }[]>`
    SELECT content FROM generation_results WHERE user_id = ${userId} AND id = ${resultId}`;
  if (!result) throw new WordPressServiceError('not_found');
  const kept = (await resultLinks(userId, resultId, db)).filter((l) => !l.removedAt && l.targetUrl);
  return weaveLinks(
    result.content ?? '',
    kept.map((l) => ({ url: l.targetUrl!, title: l.targetTitle, phrases: [l.anchor] })),
    { maxLinks: kept.length },
  ).html;
}

/** A run's post with its links; its topic and focus keyword tell posts with one title apart. */
export type RunLinksPost = { id: string; title: string; topic: string; keyword: string; links: ResultLink[]; removed: ResultLink[] };

/**
 * The review of a run's links for one page: each completed text post of the run in
 * order with its kept proposals and its removed links. Two queries whatever the run's size.
 */
export async function runLinksView(userId: string, runId: string, db: Db = sql): Promise<RunLinksPost[]> {
  const found = await db<{ id: string; title: string; topic: string; seoKeyword: string | null; keywords: string | null }[]>`
    SELECT id, coalesce(nullif(title, ''), prompt) AS title, prompt AS topic, seo_keyword AS "seoKeyword",
      metadata->'brief'->>'keywords' AS keywords
    FROM generation_results
    WHERE user_id = ${userId} AND run_id = ${runId} AND type = 'text' AND status = 'completed'
    ORDER BY position, id`;
  if (found.length === 0) return [];
  // The focus keyword as the result shows it (its own, else the CSV row's first keyword, else a short topic).
  const posts = found.map(({ seoKeyword, keywords, ...post }) => ({
    ...post,
    keyword: seoWithFallbacks(
      { focusKeyword: seoKeyword ?? '' },
      { title: post.title, html: '', topic: post.topic, keywords: keywords ?? undefined },
    ).focusKeyword,
  }));
  const rows = await db<LinkRow[]>`
    SELECT l.id, l.result_id, l.position, l.target_key, l.target_result_id, l.target_url, l.target_slug, l.target_title,
      l.anchor, l.sentence, l.score, l.removed_at
    FROM result_links l JOIN generation_results r ON r.id = l.result_id
    WHERE l.user_id = ${userId} AND r.user_id = ${userId} AND r.run_id = ${runId}
    ORDER BY l.result_id, l.removed_at NULLS FIRST, l.position`;
  const byPost = new Map(posts.map((p) => [p.id, { ...p, links: [] as ResultLink[], removed: [] as ResultLink[] }]));
  for (const row of rows) {
    const link = toLink(row);
    const post = byPost.get(link.resultId);
    if (post) (link.removedAt ? post.removed : post.links).push(link);
  }
  return [...byPost.values()];
}

/** Whether the result is a completed text post of the user's run (what "Re-link this post" may name). */
export async function isRunPost(userId: string, runId: string, resultId: string, db: Db = sql): Promise<boolean> {
  const [row] = await db`
    SELECT 1 FROM generation_results
    WHERE user_id = ${userId} AND run_id = ${runId} AND id = ${resultId} AND type = 'text' AND status = 'completed'`;
  return Boolean(row);
}

// ---------------------------------------------------------------------------------------------
// The JSON API's views and actions (api.jobs.$id.links, api.results.$id.links)

export type RunLinks = {
  runId: string;
  settings: RunLinkSettings;
  /** Every completed text post of the run in order, with its links (kept first, then removed ones, marked). */
  results: { resultId: string; title: string; links: ResultLink[] }[];
};

/** The owner's run, or generation's "job not found". */
async function ownRun(userId: string, runId: string, db: Db): Promise<void> {
  if (!isUuid(runId)) throw generationErrors.notFound('job');
  const [run] = await db`SELECT 1 FROM generation_runs WHERE user_id = ${userId} AND id = ${runId}`;
  if (!run) throw generationErrors.notFound('job');
}

/** The run's link settings and every completed text post's links, for its owner (the review's view). */
export async function runLinks(userId: string, runId: string, db: Db = sql): Promise<RunLinks> {
  await ownRun(userId, runId, db);
  const [settings, posts] = await Promise.all([runLinkSettings(userId, runId, db), runLinksView(userId, runId, db)]);
  return {
    runId,
    settings,
    results: posts.map((p) => ({ resultId: p.id, title: p.title, links: [...p.links, ...p.removed] })),
  };
}

/**
 * Saves the fields given of the run's link settings (the others keep their values) and links the
 * whole run again as they now say. Returns how many links were proposed.
 */
export async function relinkRun(userId: string, runId: string, input: RunLinkSettingsInput, db: Db = sql): Promise<number> {
  await ownRun(userId, runId, db);
  const { linkedAt: _, ...current } = await runLinkSettings(userId, runId, db);
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<typeof current>;
  await saveRunLinkSettings(userId, runId, { ...current, ...given }, db);
  return linkRunBySettings(userId, runId, {}, db);
}

/** Links one completed text post again, as its run's settings say; its links after. */
export async function relinkResult(userId: string, resultId: string, db: Db = sql): Promise<{ linked: number; links: ResultLink[] }> {
  if (!isUuid(resultId)) throw generationErrors.notFound();
  const [row] = await db<{ run_id: string; type: string; status: string }[]>`
    SELECT run_id, type, status FROM generation_results WHERE user_id = ${userId} AND id = ${resultId}`;
  if (!row) throw generationErrors.notFound();
  if (row.type !== 'text' || row.status !== 'completed') throw new WordPressServiceError('not_linkable');
  const linked = await linkRunBySettings(userId, row.run_id, { resultId }, db);
  return { linked, links: await resultLinks(userId, resultId, db) };
}

/** Removes one of the post's links (again: no change); it is never proposed again for that post. */
export async function removeResultLink(userId: string, resultId: string, linkId: string, db: Db = sql): Promise<void> {
  if (!isUuid(resultId) || !isUuid(linkId)) throw new WordPressServiceError('link_not_found');
  const [row] = await db`
    UPDATE result_links SET removed_at = coalesce(removed_at, now())
    WHERE user_id = ${userId} AND result_id = ${resultId} AND id = ${linkId} RETURNING id`;
  if (!row) throw new WordPressServiceError('link_not_found');
}

// ---------------------------------------------------------------------------------------------
// Downloads
