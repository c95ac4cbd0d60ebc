import crypto from 'node:crypto';
import { sql, transaction, type Db } from '../../../db/client';
import { enqueueMany } from '~/queue/boss';
import { hasLinkTo, weaveLinks, type LinkTarget } from '~/utils/link-weaver';
import type { SiteCredentials, WpCallOptions } from './client.server';
import { getPostRaw, publishedPostLinks, updatePostContent } from './client-content.server';

// Internal links at publish time: a result's kept proposals (result_links, never the
// removed ones) resolved for the site it is published to, and the late fix-ups of links to run posts
// published after it (wordpress_link_fixups, migration 028). The proposals say where a link may go;
// the URL is the site's: a site post's current link, a run post's published link. Called by
// publish-job.server.ts (runPublication and the fix-up job), which has the site's credentials.

// Links to the site's own posts: no rel. `nofollow` tells search engines not to credit the target,
// which is the point of internal links; `noopener`/`noreferrer` guard new tabs to other sites.
const INTERNAL_REL = null;

type KeptLink = {
  id: string;
  target_key: string;
  target_result_id: string | null;
  target_title: string;
  anchor: string;
};

export type PublishLinks = {
  /** The content with the links that have a URL now woven in. */
  html: string;
  /** How many links were placed. */
  placed: number;
  /** Links to run posts not yet published on the site that a fix-up will add once they are. */
  waiting: number;
};

/** `site:00000000000000000042` → 42 (chooseTargets' key of a site post). */
const sitePostId = (key: string) => (/^site:(\d+)$/.exec(key) ? Number(key.slice(5)) : null);

/**
 * Weaves the result's kept links into the publication's content for this site, and records a fix-up
 * for each link to a run post not yet published there. A site post must still be published on the
 * site (one REST call checks every target; one that is gone loses its link and its cache row); a
 * run post gives its published link on this site. The content is the publication's own (the user
 * may have edited it): a link whose anchor is no longer in a sentence is not placed.
 */
export async function publishLinks(
  input: { userId: string; siteId: number; publicationId: string; resultId: string; content: string; selfUrl?: string | null },
  creds: SiteCredentials,
  opts: WpCallOptions = {},
  db: Db = sql,
): Promise<PublishLinks> {
  const { userId, siteId, publicationId, resultId } = input;
  if (!/^[0-9a-f-]{36}$/i.test(resultId)) return { html: input.content, placed: 0, waiting: 0 };
  const [run] = await db<{ link_site_posts: boolean }[]>`
    SELECT g.link_site_posts FROM generation_results r JOIN generation_runs g ON g.id = r.run_id
    WHERE r.user_id = ${userId} AND r.id = ${resultId}`;
  if (!run) return { html: input.content, placed: 0, waiting: 0 };
  const kept = await db<KeptLink[]>`
    SELECT id, target_key, target_result_id, target_title, anchor FROM result_links
    WHERE user_id = ${userId} AND result_id = ${resultId} AND removed_at IS NULL ORDER BY position`;
  if (kept.length === 0) return { html: input.content, placed: 0, waiting: 0 };

  // Site posts the run was linked against on THIS site (its cache holds them), when the run wants them.
  const wantedSite = run.link_site_posts
    ? kept.map((l) => (l.target_result_id === null ? sitePostId(l.target_key) : null)).filter((n): n is number => n !== null)
    : [];
  const cached = new Set(
    (
      await db<{ wp_post_id: string }[]>`
        SELECT wp_post_id FROM wordpress_site_posts WHERE site_id = ${siteId} AND wp_post_id = ANY (${wantedSite}::bigint[])`
    ).map((r) => Number(r.wp_post_id)),
  );
  // Run posts already published on this site (their latest post there).
  const targetResults = kept.map((l) => l.target_result_id).filter((id): id is string => id !== null);
  const published = new Map(
    (
      await db<{ result_id: string; wp_post_id: string }[]>`
        SELECT DISTINCT ON (result_id) result_id, wp_post_id FROM wordpress_publications
        WHERE user_id = ${userId} AND site_id = ${siteId} AND kind = 'post' AND status = 'published' AND wp_post_id IS NOT NULL
          AND result_id = ANY (${targetResults}::text[])
        ORDER BY result_id, published_at DESC`
    ).map((r) => [r.result_id, Number(r.wp_post_id)]),
  );
  // One call for every target: which are published on the site now, and at which link.
  const live = await publishedPostLinks(creds, [...cached, ...published.values()], opts);
  const gone = [...cached].filter((id) => !live.has(id));
  if (gone.length) await db`DELETE FROM wordpress_site_posts WHERE site_id = ${siteId} AND wp_post_id = ANY (${gone}::bigint[])`;

  const targets: LinkTarget[] = [];
  const later: KeptLink[] = [];
  for (const link of kept) {
    const target = { title: link.target_title, phrases: [link.anchor] };
    if (link.target_result_id === null) {
      const id = sitePostId(link.target_key);
      const url = id !== null && cached.has(id) ? live.get(id) : undefined;
      if (url) targets.push({ ...target, url });
      continue;
    }
    const postId = published.get(link.target_result_id);
    if (postId === undefined) later.push(link);
    else if (live.has(postId)) targets.push({ ...target, url: live.get(postId)! });
    // Published once but deleted on the site since: no link (nothing will publish it again there).
  }
  const woven = weaveLinks(input.content, targets, { maxLinks: targets.length, selfUrl: input.selfUrl, rel: INTERNAL_REL });

  // A fix-up only for a waiting link that has a place in this content (after the links placed now).
  const placeholder = (l: KeptLink) => `https://fixup.invalid/${l.id}`;
  const placeable = new Set(
    weaveLinks(
      woven.html,
      later.map((l) => ({ url: placeholder(l), title: l.target_title, phrases: [l.anchor] })),
      { maxLinks: later.length },
    ).links.map((p) => p.url),
  );
  const waiting = later.filter((l) => placeable.has(placeholder(l)));
  await transaction(db, async (tx) => {
    // A retry of the publication records what this attempt sends (an earlier attempt sent nothing).
    await tx`DELETE FROM wordpress_link_fixups WHERE publication_id = ${publicationId} AND state = 'waiting'`;
    if (waiting.length === 0) return;
    await tx`
      INSERT INTO wordpress_link_fixups ${tx(
        waiting.map((l) => ({
          user_id: userId,
          publication_id: publicationId,
          site_id: siteId,
          target_result_id: l.target_result_id,
          link_id: l.id,
          anchor: l.anchor,
          target_title: l.target_title,
        })),
      )}
      ON CONFLICT (publication_id, target_result_id) DO NOTHING`;
  });
  return { html: woven.html, placed: woven.links.length, waiting: waiting.length };
}

/**
 * Called in the transaction that marks a post publication of the site published: every waiting
 * fix-up of the site whose source post and target are both published there now is queued, one
 * `wordpress-publish` job per source post. Publications of one site finish one at a time here (a
 * lock), so a source and its target finishing together cannot both miss each other.
 */
export async function queueLinkFixups(siteId: number, tx: Db): Promise<number> {
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`wordpress-link-fixups:${siteId}`}, 0))`;
  const due = await tx<{ publication_id: string }[]>`
    WITH due AS (
      SELECT f.id, t.wp_link FROM wordpress_link_fixups f
      JOIN wordpress_publications s ON s.id = f.publication_id AND s.status = 'published' AND s.wp_post_id IS NOT NULL
      JOIN LATERAL (
        SELECT p.wp_link FROM wordpress_publications p
        WHERE p.user_id = f.user_id AND p.site_id = f.site_id AND p.result_id = f.target_result_id::text AND p.kind = 'post'
          AND p.status = 'published' AND p.wp_link IS NOT NULL
        ORDER BY p.published_at DESC LIMIT 1
      ) t ON true
      WHERE f.site_id = ${siteId} AND f.state = 'waiting'
      FOR UPDATE OF f
    )
    UPDATE wordpress_link_fixups f SET state = 'queued', target_url = due.wp_link, updated_at = now()
    FROM due WHERE f.id = due.id
    RETURNING f.publication_id`;
  const sources = [...new Set(due.map((d) => d.publication_id))];
  await enqueueMany(
    'wordpress-publish',
    sources.map((publicationId) => ({ id: crypto.randomUUID(), payload: { linkFixups: publicationId } })),
    tx,
  );
  return sources.length;
}

export type FixupOutcome = { updated: boolean; done: number; dropped: number };

/**
 * The fix-up job: weaves the now-known links of one published post into it. Exactly once: the post
 * takes turns (a lock per site post, held while the site is called, so two jobs never both read the
 * old content), the rows are locked and only `queued` ones are taken, and a link already in the raw
 * content is not woven again (a retry after a crash between the update and recording it updates
 * nothing). Only the waiting links are added; the rest of the content is as the site holds it.
 */
export async function runLinkFixups(
  publicationId: string,
  creds: (userId: string, siteId: number) => Promise<SiteCredentials>,
  opts: WpCallOptions & { final?: boolean } = {},
  db: Db = sql,
): Promise<FixupOutcome> {
  const [source] = await db<{ user_id: string; site_id: string | null; wp_post_id: string | null; status: string }[]>`
    SELECT user_id, site_id, wp_post_id, status FROM wordpress_publications WHERE id = ${publicationId}`;
  const none = { updated: false, done: 0, dropped: 0 };
  if (!source) return none;
  if (source.site_id === null || source.wp_post_id === null || source.status !== 'published') {
    await db`
      UPDATE wordpress_link_fixups SET state = 'dropped', note = 'source not published', updated_at = now()
      WHERE publication_id = ${publicationId} AND state = 'queued'`;
    return none;
  }
  const siteId = Number(source.site_id);
  const postId = Number(source.wp_post_id);
  try {
    return await transaction(db, async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`wordpress-link-fixup:${siteId}:${postId}`}, 0))`;
      // Each with whether it may still go in: the user has not removed the link since (nor turned
      // linking off for the run or the site).
      const locked = await tx<{ id: string; target_result_id: string; anchor: string; target_title: string; wanted: boolean }[]>`
        SELECT f.id, f.target_result_id, f.anchor, f.target_title,
          (s.link_enabled AND g.link_enabled AND EXISTS (
            SELECT 1 FROM result_links l WHERE l.result_id = r.id AND l.target_result_id = f.target_result_id AND l.removed_at IS NULL
          )) AS wanted
        FROM wordpress_link_fixups f
        JOIN wordpress_publications p ON p.id = f.publication_id
        JOIN wordpress_sites s ON s.id = f.site_id
        LEFT JOIN generation_results r ON r.id::text = p.result_id
        LEFT JOIN generation_runs g ON g.id = r.run_id
        WHERE f.publication_id = ${publicationId} AND f.state = 'queued' ORDER BY f.created_at, f.id FOR UPDATE OF f`;
      if (locked.length === 0) return none;
      const finish = (ids: string[], state: 'done' | 'dropped', note: string | null) =>
        ids.length
          ? tx`
              UPDATE wordpress_link_fixups SET state = ${state}, note = ${note}, attempts = attempts + 1, updated_at = now(),
                done_at = CASE WHEN ${state} = 'done' THEN now() ELSE done_at END
              WHERE id = ANY (${ids}::uuid[])`
          : Promise.resolve();
      const unwanted = locked.filter((r) => !r.wanted).map((r) => r.id);
      await finish(unwanted, 'dropped', 'link removed or linking off');
      const rows = locked.filter((r) => r.wanted);
      if (rows.length === 0) return { updated: false, done: 0, dropped: unwanted.length };
      const site = await creds(source.user_id, siteId);
      const targets = await tx<{ result_id: string; wp_post_id: string }[]>`
        SELECT DISTINCT ON (result_id) result_id, wp_post_id FROM wordpress_publications
        WHERE user_id = ${source.user_id} AND site_id = ${siteId} AND kind = 'post' AND status = 'published' AND wp_post_id IS NOT NULL
          AND result_id = ANY (${rows.map((r) => r.target_result_id)}::text[])
        ORDER BY result_id, published_at DESC`;
      const targetPost = new Map(targets.map((t) => [t.result_id, Number(t.wp_post_id)]));
      const live = await publishedPostLinks(site, [...targetPost.values()], opts);
      const post = await getPostRaw(site, postId, opts);
      if (!post) {
        await finish(
          rows.map((r) => r.id),
          'dropped',
          'source post gone',
        );
        return { updated: false, done: 0, dropped: locked.length };
      }
      const urlOf = new Map<string, string>();
      const gone: string[] = [];
      const already: string[] = [];
      for (const r of rows) {
        const target = targetPost.get(r.target_result_id);
        const url = target === undefined ? undefined : live.get(target);
        // The target was deleted or unpublished since: the post is left alone.
        if (!url) gone.push(r.id);
        else if (hasLinkTo(post.raw, url)) already.push(r.id);
        else urlOf.set(r.id, url);
      }
      const pending = rows.filter((r) => urlOf.has(r.id));
      const woven = weaveLinks(
        post.raw,
        pending.map((r) => ({ url: urlOf.get(r.id)!, title: r.target_title, phrases: [r.anchor] })),
        { maxLinks: pending.length, selfUrl: post.link, rel: INTERNAL_REL },
      );
      const placedUrls = new Set(woven.links.map((l) => l.url));
      const placed = pending.filter((r) => placedUrls.has(urlOf.get(r.id)!)).map((r) => r.id);
      const unplaced = pending.filter((r) => !placedUrls.has(urlOf.get(r.id)!)).map((r) => r.id);
      if (placed.length) await updatePostContent(site, postId, woven.html, opts);
      await finish([...placed, ...already], 'done', null);
      await finish(gone, 'dropped', 'target not published');
      await finish(unplaced, 'dropped', 'anchor not in the post');
      return {
        updated: placed.length > 0,
        done: placed.length + already.length,
        dropped: unwanted.length + gone.length + unplaced.length,
      };
    });
  } catch (error) {
    if (opts.final) {
      await db`
        UPDATE wordpress_link_fixups SET state = 'failed', note = ${(error instanceof Error ? error.message : String(error)).slice(0, 500)},
          attempts = attempts + 1, updated_at = now()
        WHERE publication_id = ${publicationId} AND state = 'queued'`;
      return none;
    }
    throw error;
  }
}

/** A publication's fix-ups (tests and support): what waits, what was done. */
export async function linkFixups(
  publicationId: string,
  db: Db = sql,
): Promise<{ targetResultId: string; anchor: string; state: string; targetUrl: string | null; attempts: number }[]> {
  const rows = await db<{ target_result_id: string; anchor: string; state: string; target_url: string | null; attempts: number }[]>`
    SELECT target_result_id, anchor, state, target_url, attempts FROM wordpress_link_fixups
    WHERE publication_id = ${publicationId} ORDER BY created_at, id`;
  return rows.map((r) => ({
    targetResultId: r.target_result_id,
    anchor: r.anchor,
    state: r.state,
    targetUrl: r.target_url,
    attempts: r.attempts,
  }));
}
