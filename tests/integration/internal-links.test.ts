import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import {
  chooseTargets,
  linkedContent,
  linkRun,
  linkRunBySettings,
  phrasesOf,
  refreshSitePosts,
  removeLink,
  resultLinks,
  runLinkSettings,
  saveRunLinkSettings,
  sitePosts,
  slugFromTitle,
} from '../../app/services/internal-links.server';
import { plainText, sanitizeArticle } from '../../app/services/providers.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { listPublishedPosts } from '../../app/services/wordpress/client-content.server';
import { createSession } from '../../app/services/sessions.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';

// Internal links against the real Postgres and the real WordPress of the test
// harness seeded with 52 posts (plus drafts that must not be read): the cache holds every published
// post with its categories and tags, a refresh replaces it (bounded by LINK_SOURCE_MAX_POSTS), and
// choosing gives each post of a 20-post run its most relevant targets, never itself, never a URL twice.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
  process.env.LINK_SOURCE_MAX_POSTS = '500';
});

let wp: WordPressSite;
let app: TestApp;
const SUBJECTS = ['espresso', 'green tea', 'sourdough', 'kimchi', 'cold brew', 'matcha', 'ramen', 'croissant', 'kombucha', 'pho'];
const SEEDED = 52;
const ANGLES = ['basics', 'history', 'science', 'equipment', 'recipes', 'myths', 'shopping', 'storage', 'travel', 'health'];
ANGLES.push('advanced', 'origins', 'chemistry', 'gadgets', 'variations', 'legends', 'budgets', 'preservation', 'festivals', 'nutrition');

beforeAll(async () => {
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
  // 52 published posts (subjects cycled, a category and a tag named after the subject), 3 drafts.
  const out = await wp.php(`
    require_once ABSPATH . 'wp-admin/includes/taxonomy.php';
    $subjects = ${JSON.stringify(SUBJECTS)};
    for ($i = 1; $i <= ${SEEDED}; $i++) {
      $s = $subjects[$i % count($subjects)];
      $cat = wp_create_category(ucfirst($s) . ' guides');
      wp_insert_post(['post_title' => "Guide $i: " . ucfirst($s) . " at home", 'post_content' => "<p>All about $s, part $i.</p>",
        'post_excerpt' => "Excerpt $i & more", 'post_status' => 'publish', 'post_category' => [$cat], 'tags_input' => [$s, "tag-$i"]]);
    }
    for ($i = 1; $i <= 3; $i++) wp_insert_post(['post_title' => "Draft $i espresso", 'post_content' => 'x', 'post_status' => 'draft']);
    echo 'seeded';`);
  expect(out).toContain('seeded');
}, 180_000);

afterAll(async () => {
  await app?.close();
  await wp?.stop();
});

async function user(label: string) {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status)
    VALUES (${`links-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`}, ${label}, 'pro') RETURNING id`;
  return u!.id;
}

/** A completed 20-post run: each about one subject, its text mentioning two other subjects. */
async function run(userId: string, titles: string[]) {
  const [r] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, 'text', 'm', ${titles.length}) RETURNING id`;
  const ids: string[] = [];
  for (const [i, title] of titles.entries()) {
    const subject = SUBJECTS[i % SUBJECTS.length]!;
    const other = SUBJECTS[(i + 3) % SUBJECTS.length]!;
    const content = `<h2>${title}</h2><p>Welcome to ${title}. This post is about ${subject}.</p><p>It pairs well with ${other}, they say.</p>`;
    const [row] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, search_text)
      VALUES (${userId}, ${r!.id}, ${i + 1}, 'text', ${title}, ${title}, ${content}, 'completed', 'm', 1,
        ${`${title} ${title} This post is about ${subject}. It pairs well with ${other}.`}) RETURNING id`;
    ids.push(row!.id);
  }
  return { runId: r!.id, ids };
}

describe('link sources: the site posts cache', () => {
  it('reads every published post with its terms, pages through them, and a refresh replaces the list', async () => {
    const userId = await user('cache');
    const site = await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    expect((await sitePosts(userId, site.id)).refreshedAt).toBeNull();

    expect(await refreshSitePosts(userId, site.id)).toBe(SEEDED + 1); // + WordPress's own "Hello world!"
    const { refreshedAt, posts } = await sitePosts(userId, site.id);
    expect(refreshedAt).toBeInstanceOf(Date);
    expect(posts).toHaveLength(SEEDED + 1);
    expect(posts.some((p) => p.title.startsWith('Draft'))).toBe(false);
    const guide13 = posts.find((p) => p.title === 'Guide 13: Kimchi at home')!;
    expect(guide13.categories).toEqual(['Kimchi guides']);
    expect(guide13.tags.sort()).toEqual(['kimchi', 'tag-13']);
    expect(guide13.excerpt).toBe('Excerpt 13 & more');
    expect(guide13.url.startsWith(wp.url)).toBe(true);
    const read = await wp.rest<{ link: string }>(`/wp/v2/posts/${guide13.wpPostId}`);
    expect(read.body.link).toBe(guide13.url);

    // A post trashed on the site disappears on refresh; the bound caps what is read.
    await wp.php(`wp_trash_post(${guide13.wpPostId}); echo 'ok';`);
    await refreshSitePosts(userId, site.id);
    const after = await sitePosts(userId, site.id);
    expect(after.posts).toHaveLength(SEEDED);
    expect(after.posts.some((p) => p.wpPostId === guide13.wpPostId)).toBe(false);

    // The bound (LINK_SOURCE_MAX_POSTS by default): 30 reads one page of 30, 40 pages by 20 over 2 pages.
    expect(await refreshSitePosts(userId, site.id, { limit: 30 })).toBe(30);
    expect((await sitePosts(userId, site.id)).posts).toHaveLength(30);
    // Paging: 45 posts by pages of 20 are three requests giving the same newest 45 as one page would.
    const creds = { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword };
    const paged = await listPublishedPosts(creds, 45, { pageSize: 20 });
    const whole = await listPublishedPosts(creds, 100);
    expect(paged.map((p) => p.id)).toEqual(whole.slice(0, 45).map((p) => p.id));
    expect(new Set(paged.map((p) => p.id)).size).toBe(45);

    // Another user sees nothing of it.
    const stranger = await user('stranger');
    await expect(sitePosts(stranger, site.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(refreshSitePosts(stranger, site.id)).rejects.toMatchObject({ code: 'not_found' });
  }, 120_000);
});

describe('choosing targets', () => {
  it('gives each post of a 20-post run its most relevant targets among the run and the site, deterministically', async () => {
    const userId = await user('choose');
    const site = await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    await refreshSitePosts(userId, site.id);
    // Twenty distinct titles: two per subject (i and i + 10), each with its own second word.
    const titles = Array.from({ length: 20 }, (_, i) => `${SUBJECTS[i % SUBJECTS.length]} ${ANGLES[i]}`);
    const { runId, ids } = await run(userId, titles);

    const chosen = await chooseTargets(userId, runId, { siteId: site.id });
    expect([...chosen.keys()].sort()).toEqual([...ids].sort());
    for (const [i, id] of ids.entries()) {
      const targets = chosen.get(id)!;
      expect(targets).toHaveLength(3);
      // Never itself, never the same target or URL twice, best first.
      expect(targets.some((t) => t.resultId === id)).toBe(false);
      expect(new Set(targets.map((t) => t.key)).size).toBe(3);
      expect(new Set(targets.map((t) => t.url)).size).toBe(3);
      for (let k = 1; k < targets.length; k++) expect(targets[k - 1]!.score).toBeGreaterThanOrEqual(targets[k]!.score);
      // The post is about SUBJECTS[i % 10]: its twin in the run and the site's guides on it rank first.
      const subject = SUBJECTS[i % SUBJECTS.length]!;
      for (const t of targets) expect(t.title.toLowerCase()).toContain(subject);
      for (const t of targets) expect(t.url?.startsWith(wp.url)).toBe(true);
    }
    // The twin of result 1 ("green tea history") is result 11 ("green tea origins"): a planned URL.
    const twin = chosen.get(ids[1]!)!.find((t) => t.kind === 'result');
    expect(twin).toMatchObject({
      resultId: ids[11],
      slug: 'green-tea-origins',
      url: `${wp.url}/green-tea-origins/`,
    });

    // Same data, same choice; count is configurable.
    expect(await chooseTargets(userId, runId, { siteId: site.id })).toEqual(chosen);
    const five = await chooseTargets(userId, runId, { siteId: site.id, count: 5 });
    expect(five.get(ids[0]!)).toHaveLength(5);
    expect(five.get(ids[0]!)!.slice(0, 3)).toEqual(chosen.get(ids[0]!));

    // Without a site: only the run's own posts, as relative slugs.
    const own = await chooseTargets(userId, runId);
    for (const [i, id] of ids.entries()) {
      const targets = own.get(id)!;
      expect(targets.length).toBeGreaterThan(0);
      for (const t of targets) {
        expect(t.kind).toBe('result');
        expect(t.url).toBeNull();
        expect(t.resultId).not.toBe(id);
        expect(t.slug).toBe(slugFromTitle(t.title));
      }
      expect(targets[0]!.resultId).toBe(ids[(i + 10) % 20]);
    }

    // Another user's run or site: nothing / not found.
    const stranger = await user('stranger2');
    expect((await chooseTargets(stranger, runId)).size).toBe(0);
    await expect(chooseTargets(stranger, runId, { siteId: site.id })).rejects.toMatchObject({ code: 'not_found' });
  }, 120_000);

  it('makes slugs as WordPress would', () => {
    expect(slugFromTitle('Café au Lait: 10 Tips!')).toBe('cafe-au-lait-10-tips');
    expect(slugFromTitle('綠茶 入門')).toBe('綠茶-入門');
    expect(slugFromTitle('!!!')).toBe('post');
  });
});

describe('linking a run', () => {
  it('proposes links on words of the posts, keeps removed links removed, and weaves only the kept ones', async () => {
    const userId = await user('link');
    const site = await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    await refreshSitePosts(userId, site.id);
    const titles = Array.from({ length: 20 }, (_, i) => `${SUBJECTS[i % SUBJECTS.length]} ${ANGLES[i]}`);
    const { runId, ids } = await run(userId, titles);

    // Two presses at once give one set of proposals (the run's lock), the same as one press.
    const [a, b] = await Promise.all([linkRun(userId, runId, { siteId: site.id }), linkRun(userId, runId, { siteId: site.id })]);
    expect(a).toBe(b);
    expect(a).toBeGreaterThanOrEqual(20);
    for (const id of ids) {
      const links = await resultLinks(userId, id);
      expect(links.length).toBeGreaterThan(0);
      expect(links.length).toBeLessThanOrEqual(3);
      expect(new Set(links.map((l) => l.targetKey)).size).toBe(links.length);
      const html = await linkedContent(userId, id);
      expect(sanitizeArticle(html)).toBe(html);
      const text = plainText(html);
      for (const l of links) {
        expect(l.targetResultId).not.toBe(id);
        expect(l.targetUrl?.startsWith(wp.url)).toBe(true);
        expect(l.sentence).toContain(l.anchor);
        expect(text).toContain(l.sentence);
        expect(html).toContain(`<a href="${l.targetUrl}" rel="noopener noreferrer nofollow">${l.anchor}</a>`);
        // Not in the heading, not in the first sentence.
        expect(l.sentence.startsWith('Welcome')).toBe(false);
      }
    }

    // Remove one: it is gone from the content, and linking again does not bring it back.
    const [first] = await resultLinks(userId, ids[0]!);
    await removeLink(userId, first!.id);
    await removeLink(userId, first!.id);
    expect(await linkedContent(userId, ids[0]!)).not.toContain(`href="${first!.targetUrl}"`);
    await linkRun(userId, runId, { siteId: site.id });
    const again = await resultLinks(userId, ids[0]!);
    expect(again.filter((l) => l.targetKey === first!.targetKey)).toEqual([
      expect.objectContaining({ id: first!.id, removedAt: expect.any(Date) }),
    ]);
    expect(await linkedContent(userId, ids[0]!)).not.toContain(`href="${first!.targetUrl}"`);

    // Nobody else can see or remove them.
    const stranger = await user('stranger3');
    expect(await resultLinks(stranger, ids[1]!)).toEqual([]);
    await expect(removeLink(stranger, again[0]!.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(linkRun(stranger, runId)).rejects.toMatchObject({ code: 'not_found' });
  }, 120_000);

  it('links a run with no site among its own posts by slug, leaving the content as it is until URLs exist', async () => {
    const userId = await user('noside');
    const titles = Array.from({ length: 20 }, (_, i) => `${SUBJECTS[i % SUBJECTS.length]} ${ANGLES[i]}`);
    const { runId, ids } = await run(userId, titles);
    expect(await linkRun(userId, runId)).toBeGreaterThanOrEqual(20);
    for (const id of ids) {
      const links = await resultLinks(userId, id);
      for (const l of links) {
        expect(l.targetUrl).toBeNull();
        expect(l.targetSlug).toBe(slugFromTitle(l.targetTitle));
        expect(l.targetResultId).not.toBe(id);
      }
      const [row] = await sql<{ content: string }[]>`SELECT content FROM generation_results WHERE id = ${id}`;
      expect(await linkedContent(userId, id)).toBe(row!.content);
    }
  }, 60_000);
});

describe('linking a run as its settings say', () => {
  it('uses the run settings (default site, count, site posts), re-runs one post alone, and withdraws kept links when off', async () => {
    const userId = await user('settings');
    const site = await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    await refreshSitePosts(userId, site.id);
    const titles = Array.from({ length: 20 }, (_, i) => `${SUBJECTS[i % SUBJECTS.length]} ${ANGLES[i]}`);
    const { runId, ids } = await run(userId, titles);

    // Defaults: on, 3 links, site posts of the default site.
    expect(await runLinkSettings(userId, runId)).toEqual({ enabled: true, count: 3, sitePosts: true, siteId: null, linkedAt: null });
    expect(await linkRunBySettings(userId, runId)).toBeGreaterThanOrEqual(20);
    expect((await runLinkSettings(userId, runId)).linkedAt).toBeInstanceOf(Date);
    const all = (await Promise.all(ids.map((id) => resultLinks(userId, id)))).flat();
    expect(all.some((l) => l.targetKey.startsWith('site:'))).toBe(true);

    // One link each, run posts only: slugs, no site post.
    await saveRunLinkSettings(userId, runId, { enabled: true, count: 1, sitePosts: false, siteId: null });
    await linkRunBySettings(userId, runId);
    for (const id of ids) {
      const links = (await resultLinks(userId, id)).filter((l) => !l.removedAt);
      expect(links.length).toBeLessThanOrEqual(1);
      for (const l of links) expect(l).toMatchObject({ targetUrl: null, targetKey: expect.stringMatching(/^result:/) });
    }

    // Re-running one post touches only its proposals.
    await saveRunLinkSettings(userId, runId, { enabled: true, count: 3, sitePosts: true, siteId: site.id });
    const before1 = await resultLinks(userId, ids[1]!);
    await linkRunBySettings(userId, runId, { resultId: ids[0]! });
    expect((await resultLinks(userId, ids[0]!)).filter((l) => !l.removedAt).length).toBeGreaterThan(1);
    expect(await resultLinks(userId, ids[1]!)).toEqual(before1);

    // Off: kept proposals withdrawn, removed ones stay recorded.
    const [gone] = await resultLinks(userId, ids[0]!);
    await removeLink(userId, gone!.id);
    await saveRunLinkSettings(userId, runId, { enabled: false, count: 3, sitePosts: true, siteId: site.id });
    expect(await linkRunBySettings(userId, runId)).toBe(0);
    expect(await resultLinks(userId, ids[0]!)).toEqual([expect.objectContaining({ id: gone!.id, removedAt: expect.any(Date) })]);
    expect(await resultLinks(userId, ids[2]!)).toEqual([]);

    // Another user's site or run: not found.
    const stranger = await user('settings-stranger');
    const theirs = await createSite(stranger, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    await expect(saveRunLinkSettings(userId, runId, { enabled: true, count: 3, sitePosts: true, siteId: theirs.id })).rejects.toMatchObject(
      {
        code: 'not_found',
      },
    );
    await expect(runLinkSettings(stranger, runId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(linkRunBySettings(stranger, runId)).rejects.toMatchObject({ code: 'not_found' });
  }, 120_000);
});

describe('the site posts API', () => {
  it('GET shows the cache, POST refreshes it, only for the site owner', async () => {
    const clientOf = async (userId: string) => {
      const client = new TestClient(app.url);
      const { setCookie } = await createSession(userId);
      const pair = setCookie.split(';')[0]!;
      client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      return client;
    };
    const userId = await user('api');
    const site = await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    const client = await clientOf(userId);
    const before = await client.request(`/api/wordpress/sites/${site.id}/posts`);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({ refreshedAt: null, posts: [] });
    const refreshed = await client.request(`/api/wordpress/sites/${site.id}/posts`, { method: 'POST' });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as { refreshedAt: string; posts: { title: string }[] };
    expect(body.refreshedAt).toEqual(expect.any(String));
    expect(body.posts.length).toBeGreaterThanOrEqual(30);
    const stranger = await clientOf(await user('api-stranger'));
    expect((await stranger.request(`/api/wordpress/sites/${site.id}/posts`, { method: 'POST' })).status).toBe(404);
    expect((await stranger.request(`/api/wordpress/sites/${site.id}/posts`)).status).toBe(404);
    expect((await new TestClient(app.url).request(`/api/wordpress/sites/${site.id}/posts`)).status).toBe(401);
  }, 60_000);
});

describe('phrasesOf', () => {
  it('offers the title, tags, categories, then title parts on content words', () => {
    expect(phrasesOf({ title: 'Guide 3: Kimchi at home', tags: ['kimchi', 'Fermenting'], categories: ['Kimchi guides'] })).toEqual([
      'Guide 3: Kimchi at home',
      'kimchi',
      'Fermenting',
      'Kimchi guides',
      'Guide 3 Kimchi',
      'Kimchi at home',
      'Guide',
    ]);
  });
});
