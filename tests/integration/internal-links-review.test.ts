import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { createSite } from '../../app/services/wordpress/sites.server';
import { startTestApp, type TestApp, type TestClient } from '../support/app-server';
import { signedInClient } from '../support/input-tools';

// The internal-links review on a run's page through the real app as a browser
// without JavaScript posts it: the run's settings and Link posts, Remove and Re-link this post,
// owner scoping, bad input answered in the user's language (en and zh-HK), the CSRF guard, and the
// data requests a fetcher makes (JavaScript on) answered without the #fragment.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const TITLES = ['Espresso basics', 'Green tea brewing', 'Sourdough starter', 'Kimchi fermentation'];

async function owner(label: string) {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status)
    VALUES (${`review-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`}, ${label}, 'pro') RETURNING id`;
  return { id: u!.id, c: await signedInClient(app.url, u!.id) };
}

/** A completed text run of four posts, each naming the other three in its second paragraph. */
async function completedRun(userId: string) {
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, 'text', 'm', ${TITLES.length}) RETURNING id`;
  const ids: string[] = [];
  for (const [i, title] of TITLES.entries()) {
    const others = TITLES.filter((t) => t !== title);
    const content =
      `<h2>${title}</h2><p>This post is all about ${title.toLowerCase()}.</p>` +
      `<p>${others.map((o) => `Readers also ask about ${o.toLowerCase()} every week.`).join(' ')}</p>`;
    const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, search_text)
      VALUES (${userId}, ${run!.id}, ${i + 1}, 'text', ${title}, ${title}, ${content}, 'completed', 'm', 1,
        ${`${title} ${others.join(' ')}`}) RETURNING id`;
    ids.push(r!.id);
  }
  return { runId: run!.id, ids };
}

const linksOf = (runId: string) =>
  sql<{ id: string; result_id: string; target_key: string; target_slug: string | null; anchor: string; removed_at: Date | null }[]>`
    SELECT l.id, l.result_id, l.target_key, l.target_slug, l.anchor, l.removed_at
    FROM result_links l JOIN generation_results r ON r.id = l.result_id WHERE r.run_id = ${runId} ORDER BY l.result_id, l.position`;

function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/gi, ' ')
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

async function follow(c: TestClient, res: Response) {
  expect([302, 303]).toContain(res.status);
  const url = res.headers.get('location')!;
  const page = await c.get(url);
  expect(page.status).toBe(200);
  return { url, text: visibleText(await page.text()) };
}

const settings = (over: Record<string, string> = {}) => ({
  intent: 'link-run',
  enabled: 'on',
  count: '2',
  sitePosts: 'on',
  siteId: '',
  ...over,
});

describe('the run page: internal links without JavaScript', () => {
  it('links the run, shows each proposal, removes one for good, re-links a post and the run', async () => {
    const a = await owner('a');
    const { runId, ids } = await completedRun(a.id);
    const url = `/app/runs/${runId}`;

    const before = visibleText(await (await a.c.get(url)).text());
    expect(before).toContain('Internal links');
    expect(before).toContain('Linking makes no AI call: it costs no credits.');
    expect(before).toContain('Not linked yet.');
    expect(before).toContain('No WordPress site is connected');

    // Link posts: settings saved, links proposed, the page shows them with their /slug/ targets.
    const linked = await follow(a.c, await a.c.postForm(url, settings()));
    expect(linked.url).toBe(`${url}#internal-links`);
    expect(linked.text).toContain('Posts linked');
    const [run] =
      await sql`SELECT link_enabled, link_count, link_site_posts, link_site_id, linked_at FROM generation_runs WHERE id = ${runId}`;
    expect(run).toMatchObject({ link_enabled: true, link_count: 2, link_site_posts: true, link_site_id: null });
    expect(run!.linked_at).toBeInstanceOf(Date);
    const rows = await linksOf(runId);
    for (const id of ids) expect(rows.filter((r) => r.result_id === id)).toHaveLength(2);
    expect(linked.text).toContain(`${rows.length} links proposed across 4 posts`);
    expect(linked.text).toContain('Last linked');
    for (const r of rows) {
      expect(r.target_slug).toMatch(/^[a-z-]+$/);
      expect(linked.text).toContain(`/${r.target_slug}/`);
      expect(linked.text).toContain(`“${r.anchor}”`);
    }
    expect(linked.text).toContain('Post of this run');
    expect(linked.text).toMatch(/Why: relevance \d+\.\d/);

    // Remove one: it is listed as removed, and neither re-linking the post nor the run brings it back.
    const gone = rows.find((r) => r.result_id === ids[0])!;
    const removed = await follow(a.c, await a.c.postForm(url, { intent: 'remove-link', linkId: gone.id, resultId: ids[0]! }));
    expect(removed.url).toBe(`${url}#post-${ids[0]}`);
    expect(removed.text).toContain('Link removed');
    expect(removed.text).toContain('1 removed link');
    const relinked = await follow(a.c, await a.c.postForm(url, { intent: 'relink-post', resultId: ids[0]! }));
    expect(relinked.text).toContain('Post linked again');
    const again = await follow(a.c, await a.c.postForm(url, settings()));
    expect(again.text).toContain('1 removed link');
    const after = await linksOf(runId);
    const firstPost = after.filter((r) => r.result_id === ids[0]);
    expect(firstPost.filter((r) => r.target_key === gone.target_key)).toEqual([expect.objectContaining({ id: gone.id })]);
    expect(firstPost.find((r) => r.id === gone.id)!.removed_at).toBeInstanceOf(Date);
    expect(firstPost.filter((r) => !r.removed_at).length).toBeGreaterThan(0);

    // Off: the kept proposals are withdrawn, the removed one stays recorded.
    const off = await follow(a.c, await a.c.postForm(url, settings({ enabled: '' })));
    expect(off.text).toContain('Linking is off for this run');
    const offRows = await linksOf(runId);
    expect(offRows.map((r) => r.id)).toEqual([gone.id]);
    expect((await sql`SELECT link_enabled FROM generation_runs WHERE id = ${runId}`)[0]!.link_enabled).toBe(false);

    // Two posts with one title are told apart by their topics (and focus keywords).
    await sql`UPDATE generation_results SET title = ${TITLES[1]!}, seo_keyword = 'first keyword' WHERE id = ${ids[0]!}`;
    const same = visibleText(await (await a.c.get(url)).text());
    expect(same).toContain(`${TITLES[1]} Topic: ${TITLES[0]} · Keyword: first keyword`);
  });

  it('answers bad input in the user’s language and keeps other users out', async () => {
    const a = await owner('b');
    const b = await owner('c');
    const { runId, ids } = await completedRun(a.id);
    const url = `/app/runs/${runId}`;
    const theirs = await createSite(b.id, { siteUrl: 'http://127.0.0.1:9', username: 'u', appPassword: 'p', isDefault: true });
    const mine = await createSite(a.id, { siteUrl: 'http://127.0.0.2:9', username: 'u', appPassword: 'p', isDefault: true });

    for (const [lang, count, site] of [
      ['en', 'Links per post must be a whole number from 1 to 10.', 'That site is not one of your connected sites.'],
      ['zh-HK', '每篇文章的連結數目須為 1 至 10 的整數。', '該網站不是你已連接的網站。'],
    ] as const) {
      const headers = { 'accept-language': lang };
      for (const bad of ['11', '0', 'abc', '', '2.5']) {
        const res = await a.c.postForm(url, settings({ count: bad }), headers);
        expect(res.status, bad).toBe(400);
        expect(visibleText(await res.text())).toContain(count);
      }
      const res = await a.c.postForm(url, settings({ siteId: String(theirs.id) }), headers);
      expect(res.status).toBe(400);
      expect(visibleText(await res.text())).toContain(site);
    }
    // Nothing was saved or linked by the refused posts.
    const [run] = await sql`SELECT link_count, link_site_id, linked_at FROM generation_runs WHERE id = ${runId}`;
    expect(run).toMatchObject({ link_count: 3, link_site_id: null, linked_at: null });
    expect(await linksOf(runId)).toHaveLength(0);

    // The user's own site is kept (its planned URLs are the targets: the cache of its posts is empty).
    const withSite = await follow(a.c, await a.c.postForm(url, settings({ siteId: String(mine.id) })));
    expect(withSite.text).toContain('Default site (127.0.0.2:9)');
    expect((await sql`SELECT link_site_id FROM generation_runs WHERE id = ${runId}`)[0]!.link_site_id).toBe(String(mine.id));
    const rows = await linksOf(runId);
    expect(rows.length).toBeGreaterThan(0);
    expect(withSite.text).toContain('http://127.0.0.2:9/');

    // Another user: the page and its posts are a 404, a link of this run cannot be removed through their own run.
    expect((await b.c.get(url)).status).toBe(404);
    expect((await b.c.postForm(url, settings())).status).toBe(404);
    expect((await b.c.postForm(url, { intent: 'relink-post', resultId: ids[0]! })).status).toBe(404);
    const other = await completedRun(b.id);
    const refused = await follow(
      b.c,
      await b.c.postForm(`/app/runs/${other.runId}`, { intent: 'remove-link', linkId: rows[0]!.id }, { 'accept-language': 'zh-HK' }),
    );
    expect(refused.text).toContain('未能建立連結');
    expect(refused.text).toContain('找不到該連結。');
    expect((await linksOf(runId)).every((r) => r.removed_at === null)).toBe(true);

    // Ids that are not ids: a message, no error page.
    const badPost = await follow(a.c, await a.c.postForm(url, { intent: 'relink-post', resultId: 'nope' }));
    expect(badPost.text).toContain('That post is not in this run.');
    const notHers = await follow(
      a.c,
      await a.c.postForm(url, { intent: 'relink-post', resultId: other.ids[0]! }, { 'accept-language': 'zh-HK' }),
    );
    expect(notHers.text).toContain('此批次中沒有該文章。');
    expect(await linksOf(other.runId)).toHaveLength(0);
    const badLink = await follow(a.c, await a.c.postForm(url, { intent: 'remove-link', linkId: "1' OR 1=1" }));
    expect(badLink.text).toContain('That link was not found.');
    expect((await a.c.postForm('/app/runs/not-a-run', settings())).status).toBe(404);

    // CSRF: a post from another origin is refused before anything changes.
    const forged = await a.c.postForm(url, { intent: 'remove-link', linkId: rows[0]!.id }, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect((await linksOf(runId)).every((r) => r.removed_at === null)).toBe(true);
  });

  it('answers a fetcher (a Remix data request) with the redirect and no #fragment, in zh-HK too', async () => {
    const a = await owner('d');
    const { runId } = await completedRun(a.id);
    const url = `/app/runs/${runId}`;
    // The hydrated forms add stay=1: the answer keeps the page where it is.
    const res = await a.c.postForm(`${url}?_data=${encodeURIComponent('routes/app_.runs.$id')}`, settings({ stay: '1' }), {
      'accept-language': 'zh-HK',
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-remix-redirect')).toBe(url);
    const page = visibleText(await (await a.c.get(url, { 'accept-language': 'zh-HK' })).text());
    expect(page).toContain('已建立連結');
    expect(page).toContain('內部連結');
    expect(page).toContain('建立連結不會呼叫 AI，不收取任何點數。');
    expect(page).toContain('本批次的文章');
    // A bad count from a fetcher: the form's reply as data, in the user's language.
    const bad = await a.c.postForm(`${url}?_data=${encodeURIComponent('routes/app_.runs.$id')}`, settings({ count: '99' }), {
      'accept-language': 'zh-HK',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('每篇文章的連結數目須為 1 至 10 的整數。');
  });
});
