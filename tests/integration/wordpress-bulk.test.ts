import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { queueBulkPublications, zonedSchedule } from '../../app/services/wordpress/bulk.server';
import { queuePublications } from '../../app/services/wordpress/publications.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { startPublishWorker } from '../support/publish-worker';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';

// Bulk publishing and what a result's row shows of its publication, against the real
// WordPress of the test harness: a bulk schedule of 20 through the queue, the JSON API's rules
// (validation, Pro only, owner only, one transaction), the bulk page without JavaScript, the
// workspace's WordPress tab for Pro, Pro (Ending) and Free users.

// The test WordPress lives on 127.0.0.1.
vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

let app: TestApp;
let wp: WordPressSite;
let openai: OpenAiServer;

type Account = { id: string; client: TestClient; siteId: number };

async function account(status: 'free' | 'pro' | 'canceled', label: string): Promise<Account> {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status)
    VALUES (${`wp-bulk-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`}, ${label}, ${status}) RETURNING id`;
  const client = new TestClient(app.url);
  const { setCookie } = await createSession(u!.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  const site = await createSite(u!.id, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
  return { id: u!.id, client, siteId: site.id };
}

/** Completed text results (titles `${label} 1`…), oldest first; with `image` a stored generated image each. */
async function results(
  userId: string,
  label: string,
  count: number,
  opts: { status?: string; type?: 'text' | 'image'; image?: boolean } = {},
): Promise<string[]> {
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, ${opts.type ?? 'text'}, 'm', ${count}) RETURNING id`;
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, created_at)
      VALUES (${userId}, ${run!.id}, ${i}, ${opts.type ?? 'text'}, ${`topic ${i}`}, ${`${label} ${i}`},
        ${`<p>Body of ${label} ${i}</p>`}, ${opts.status ?? 'completed'}, 'm', 1, now() - make_interval(secs => ${count - i}))
      RETURNING id`;
    if (opts.image)
      await sql`INSERT INTO generation_images (user_id, result_id, content_type, bytes) VALUES (${userId}, ${r!.id}, 'image/png', ${PNG})`;
    ids.push(r!.id);
  }
  return ids;
}

async function jobsOf(publicationIds: string[]) {
  return sql<{ publication_id: string; start_after: Date; state: string }[]>`
    SELECT data->>'publicationId' AS publication_id, start_after, state FROM pgboss.job
    WHERE name = 'wordpress-publish' AND data->>'publicationId' = ANY(${publicationIds})`;
}

async function publicationsOf(userId: string) {
  return sql<{ id: string; result_id: string; publish_at: Date; status: string; published_at: Date | null; wp_post_id: string | null }[]>`
    SELECT id, result_id, publish_at, status, published_at, wp_post_id FROM wordpress_publications WHERE user_id = ${userId} ORDER BY publish_at, id`;
}

async function postsTitled(title: string) {
  const res = await wp.rest<{ id: number; title: { raw: string } }[]>(
    `/wp/v2/posts?search=${encodeURIComponent(title)}&status=publish,future,draft&context=edit&per_page=100`,
  );
  return res.body.filter((p) => p.title.raw === title);
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 250));
  }
}

function form(client: TestClient, path: string, fields: [string, string][]) {
  return client.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

let working = false;
async function startWorker() {
  if (working) return;
  working = true;
  await startPublishWorker({ batchSize: 20 });
}

beforeAll(async () => {
  // The model that chooses categories and tags per post: the OpenAI-compatible test server.
  openai = await startOpenAiServer();
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator-test' });
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
}, 180_000);

afterAll(async () => {
  await openai?.close();
  await app?.close();
  await wp?.stop();
});

describe('bulk publishing', () => {
  it('a bulk schedule of 20: one transaction, each post published once, at or after its time, in order', async () => {
    const pro = await account('pro', 'bulk20');
    const ids = await results(pro.id, 'Bulk twenty', 20, { image: true });
    const start = new Date(Date.now() + 3000);
    // Half a second apart (the service takes any step; the API's smallest is an hour).
    const pubs = await queueBulkPublications(pro.id, {
      siteId: pro.siteId,
      resultIds: ids,
      schedule: { start, every: 0.5 / 3600, unit: 'hours', timeZone: 'Asia/Hong_Kong' },
      categories: [],
      tags: ['bulk'],
      featured: true,
    });
    expect(pubs).toHaveLength(20);
    expect(pubs.map((p) => p.resultId)).toEqual(ids);
    expect(pubs.map((p) => new Date(p.publishAt).getTime())).toEqual(ids.map((_, i) => start.getTime() + i * 500));
    // Every job waits for its own time (startAfter = publish time).
    const jobs = await jobsOf(pubs.map((p) => p.id));
    expect(jobs).toHaveLength(20);
    for (const p of pubs) {
      expect(jobs.find((j) => j.publication_id === p.id)!.start_after.getTime()).toBe(new Date(p.publishAt).getTime());
    }
    expect(await postsTitled('Bulk twenty 1')).toHaveLength(0);

    await startWorker();
    const done = await waitFor(async () => {
      const rows = await publicationsOf(pro.id);
      return rows.every((r) => r.status === 'published') ? rows : null;
    }, 90_000);
    for (const r of done) expect(r.published_at!.getTime()).toBeGreaterThanOrEqual(r.publish_at.getTime());
    for (let i = 1; i <= 20; i++) {
      const posts = await postsTitled(`Bulk twenty ${i}`);
      expect(posts).toHaveLength(1);
    }
    const first = (await wp.rest<{ featured_media: number; tags: number[] }>(`/wp/v2/posts/${done[0]!.wp_post_id}`)).body;
    expect(first.featured_media).toBeGreaterThan(0);
    expect(first.tags).toHaveLength(1);
  }, 150_000);

  it('POST /api/wordpress/publish-bulk spreads the posts from a start in the user’s time zone (days keep the wall-clock time)', async () => {
    const pro = await account('pro', 'api');
    const ids = await results(pro.id, 'Api bulk', 3);
    // 14 March 2027: daylight saving starts in New York; 09:00 stays 09:00 local.
    const res = await pro.client.postJson('/api/wordpress/publish-bulk', {
      siteId: pro.siteId,
      resultIds: ids,
      mode: 'schedule',
      startDate: '2027-03-12',
      startTime: '09:00',
      timeZone: 'America/New_York',
      every: 1,
      unit: 'days',
    });
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body.queued).toBe(3);
    expect(body.publications.map((p: { publishAt: string }) => p.publishAt)).toEqual([
      '2027-03-12T14:00:00.000Z',
      '2027-03-13T14:00:00.000Z',
      '2027-03-14T13:00:00.000Z',
    ]);
    const jobs = await jobsOf(body.publications.map((p: { id: string }) => p.id));
    expect(jobs.map((j) => j.start_after.toISOString()).sort()).toEqual([
      '2027-03-12T14:00:00.000Z',
      '2027-03-13T14:00:00.000Z',
      '2027-03-14T13:00:00.000Z',
    ]);

    // Hours: exact steps; the zone comes from the tz cookie when the body has none.
    const more = await results(pro.id, 'Api hours', 2);
    pro.client.cookies.set('tz', 'Asia%2FHong_Kong');
    const hours = await (
      await pro.client.postJson('/api/wordpress/publish-bulk', {
        siteId: pro.siteId,
        resultIds: more.join(','),
        mode: 'schedule',
        startDate: '2027-01-05',
        startTime: '08:30',
        every: 6,
        unit: 'hours',
      })
    ).json();
    expect(hours.publications.map((p: { publishAt: string }) => p.publishAt)).toEqual([
      '2027-01-05T00:30:00.000Z',
      '2027-01-05T06:30:00.000Z',
    ]);

    // Now: every job is due at once.
    // Their status on the site: pending review here (publish when left out, as above).
    expect(body.publications.map((p: { postStatus: string }) => p.postStatus)).toEqual(['publish', 'publish', 'publish']);
    const now = await results(pro.id, 'Api now', 2);
    const queued = await (
      await pro.client.postJson('/api/wordpress/publish-bulk', { siteId: pro.siteId, resultIds: now, mode: 'now', postStatus: 'pending' })
    ).json();
    expect(queued.queued).toBe(2);
    expect(queued.publications.map((p: { postStatus: string }) => p.postStatus)).toEqual(['pending', 'pending']);
    for (const j of await jobsOf(queued.publications.map((p: { id: string }) => p.id)))
      expect(j.start_after.getTime()).toBeLessThanOrEqual(Date.now());

    expect(zonedSchedule(new Date('2026-10-30T13:00:00Z'), 4, 1, 'days', 'America/New_York').map((d) => d.toISOString())).toEqual([
      '2026-10-30T13:00:00.000Z',
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
    ]);
  });

  it('validation: the messages of the form, and nothing queued', async () => {
    const pro = await account('pro', 'valid');
    const [id] = await results(pro.id, 'Valid', 1);
    const post = (body: unknown) => pro.client.postJson('/api/wordpress/publish-bulk', body);
    const empty = await post({ siteId: 0, resultIds: [] });
    expect(empty.status).toBe(400);
    expect((await empty.json()).fields).toMatchObject({
      siteId: ['Please select a WordPress site'],
      resultIds: ['Select at least one completed result'],
    });
    const noStart = await post({ siteId: pro.siteId, resultIds: [id], mode: 'schedule' });
    expect(noStart.status).toBe(400);
    expect((await noStart.json()).fields.startDate).toEqual(['Please choose a valid date and time']);
    const badEvery = await post({ siteId: pro.siteId, resultIds: [id], mode: 'schedule', startAt: new Date().toISOString(), every: 0 });
    expect((await badEvery.json()).fields.every).toEqual(['Enter a whole number from 1 to 365']);
    expect((await post({ siteId: pro.siteId, resultIds: [id], mode: 'later' })).status).toBe(400);
    expect((await post({ siteId: pro.siteId, resultIds: [id], unit: 'weeks' })).status).toBe(400);
    const tooMany = await post({ siteId: pro.siteId, resultIds: Array.from({ length: 501 }, (_, i) => `id-${i}`) });
    expect((await tooMany.json()).fields.resultIds).toEqual(['Select at most 500 results']);
    const past = await post({ siteId: pro.siteId, resultIds: [id], mode: 'schedule', startDate: '2020-01-01', startTime: '10:00' });
    expect(past.status).toBe(400);
    expect((await past.json()).error).toBe('The first post cannot be before today');
    // Not a completed text result: refused, and the good one next to it is not queued either.
    const [processing] = await results(pro.id, 'Still running', 1, { status: 'processing' });
    const [image] = await results(pro.id, 'An image', 1, { type: 'image' });
    for (const other of [processing, image]) {
      const res = await post({ siteId: pro.siteId, resultIds: [id, other] });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('Only completed text results can be published.');
    }
    // zh-HK
    const zh = await pro.client.postJson(
      '/api/wordpress/publish-bulk',
      { siteId: pro.siteId, resultIds: [] },
      { 'accept-language': 'zh-HK' },
    );
    expect((await zh.json()).fields.resultIds).toEqual(['請至少選擇一個已完成的結果']);
    expect(await publicationsOf(pro.id)).toHaveLength(0);
  });

  it("owner only: another user's result or site is 404 and nothing is queued; Free users are refused (403)", async () => {
    const a = await account('pro', 'owner-a');
    const b = await account('pro', 'owner-b');
    const mine = await results(a.id, 'Mine', 2);
    const [theirs] = await results(b.id, 'Theirs', 1);
    const res = await a.client.postJson('/api/wordpress/publish-bulk', { siteId: a.siteId, resultIds: [...mine, theirs] });
    expect(res.status).toBe(404);
    expect(await publicationsOf(a.id)).toHaveLength(0);
    expect(await publicationsOf(b.id)).toHaveLength(0);
    expect((await a.client.postJson('/api/wordpress/publish-bulk', { siteId: b.siteId, resultIds: mine })).status).toBe(404);
    expect((await a.client.postJson('/api/wordpress/publish-bulk', { siteId: a.siteId, resultIds: ['not-a-uuid'] })).status).toBe(404);
    expect(await publicationsOf(a.id)).toHaveLength(0);
    // The bulk page: another user's result is not found either.
    expect((await a.client.get(`/app/publish-bulk?ids=${mine[0]},${theirs}`)).status).toBe(404);

    const free = await account('free', 'free');
    const own = await results(free.id, 'Free post', 2);
    const refused = await free.client.postJson('/api/wordpress/publish-bulk', { siteId: free.siteId, resultIds: own });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe('Publishing to WordPress is a Pro feature.');
    // The single publish call and the pages refuse too.
    expect(
      (await free.client.postJson('/api/wordpress/publish', { siteId: free.siteId, title: 't', content: '<p>c</p>', status: 'publish' }))
        .status,
    ).toBe(403);
    const page = await free.client.get(`/app/publish-bulk?ids=${own.join(',')}`);
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/app?tab=wordpress');
    const posted = await form(free.client, '/app/publish-bulk', [
      ['siteId', String(free.siteId)],
      ['resultIds', own[0]!],
      ['mode', 'now'],
    ]);
    expect(posted.status).toBe(302);
    expect(posted.headers.get('location')).toBe('/app?tab=wordpress');
    expect(await (await free.client.get('/app?tab=wordpress')).text()).toContain('Publishing to WordPress is a Pro feature.');
    expect(await publicationsOf(free.id)).toHaveLength(0);
    expect(
      await sql`SELECT 1 FROM pgboss.job WHERE name = 'wordpress-publish' AND data->>'publicationId' IN (
      SELECT id::text FROM wordpress_publications WHERE user_id = ${free.id})`,
    ).toHaveLength(0);
  });

  it('the bulk page works as plain forms: lists the chosen results and the site’s categories, schedules them, answers errors', async () => {
    const pro = await account('canceled', 'page');
    const ids = await results(pro.id, 'Page bulk', 3);
    const [processing] = await results(pro.id, 'Page running', 1, { status: 'processing' });
    // The form posts to the page's own URL (with the selection in it), as a browser does.
    const pageUrl = `/app/publish-bulk?ids=${ids.join(',')}&ids=${processing}`;
    const page = await pro.client.get(pageUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    for (let i = 1; i <= 3; i++) expect(html).toContain(`Page bulk ${i}`);
    expect(html).toContain('3 results selected');
    expect(html).toContain('1 selected result is not a completed text result and is left out.');
    expect(html).toContain('News');
    // The posts' status on the site, a plain radio group (published by default).
    expect(html).toContain('Status on the site');
    expect(html).toMatch(/<input type="radio" name="postStatus"[^>]* checked=""[^>]* value="publish"/);

    const base = (extra: [string, string][]): [string, string][] => [
      ['siteId', String(pro.siteId)],
      ...ids.map((id): [string, string] => ['resultIds', id]),
      ['mode', 'schedule'],
      ['unit', 'hours'],
      ...extra,
    ];
    const noDate = await form(pro.client, pageUrl, base([['every', '1']]));
    expect(noDate.status).toBe(400);
    expect(await noDate.text()).toContain('Please choose a valid date and time');
    const badEvery = await form(
      pro.client,
      '/app/publish-bulk',
      base([
        ['startDate', '2027-06-01'],
        ['startTime', '10:15'],
        ['every', '0'],
      ]),
    );
    expect(badEvery.status).toBe(400);
    expect(await badEvery.text()).toContain('Enter a whole number from 1 to 365');
    expect(await publicationsOf(pro.id)).toHaveLength(0);

    const cats = await wp.rest<{ id: number; name: string }[]>('/wp/v2/categories?per_page=100');
    const news = cats.body.find((c) => c.name === 'News')!;
    const res = await form(pro.client, '/app/publish-bulk', [
      ['siteId', String(pro.siteId)],
      ...ids.map((id): [string, string] => ['resultIds', id]),
      ['timeZone', 'Europe/London'],
      ['mode', 'schedule'],
      ['startDate', '2027-06-01'],
      ['startTime', '10:15'],
      ['every', '2'],
      ['unit', 'hours'],
      ['categories', String(news.id)],
      ['tags', 'one, two'],
      ['postStatus', 'draft'],
    ]);
    expect(res.status).toBe(302);
    const statuses = await sql<{ wp_status: string }[]>`SELECT wp_status FROM wordpress_publications WHERE user_id = ${pro.id}`;
    expect(statuses.map((r) => r.wp_status)).toEqual(['draft', 'draft', 'draft']);
    expect(res.headers.get('location')).toBe('/app?tab=wordpress');
    const rows = await sql<{ publish_at: Date; categories: string[]; tags: string[]; title: string; featured_image: Buffer | null }[]>`
      SELECT publish_at, categories, tags, title, featured_image FROM wordpress_publications WHERE user_id = ${pro.id} ORDER BY publish_at`;
    expect(rows.map((r) => r.publish_at.toISOString())).toEqual([
      '2027-06-01T09:15:00.000Z',
      '2027-06-01T11:15:00.000Z',
      '2027-06-01T13:15:00.000Z',
    ]);
    expect(rows.map((r) => r.title)).toEqual(['Page bulk 1', 'Page bulk 2', 'Page bulk 3']);
    expect(rows[0]!.categories.map(Number)).toEqual([news.id]);
    expect(rows[0]!.tags).toEqual(['one', 'two']);
    // The toast of the redirect, then the WordPress tab lists them as waiting.
    const tab = await pro.client.get('/app?tab=wordpress');
    const tabHtml = await tab.text();
    expect(tabHtml).toContain('3 posts scheduled');
    expect(tabHtml.match(/data-testid="scheduled-row"/g)).toHaveLength(3);
  });

  it("a result's row shows its publication: scheduled, published with a link to the post, failed with the site's message", async () => {
    const pro = await account('pro', 'rows');
    const [scheduledId, publishedId, failedId, plainId] = await results(pro.id, 'Row', 4);
    const [scheduled] = await queuePublications(pro.id, [
      {
        siteId: pro.siteId,
        resultId: scheduledId!,
        title: 'Row 1',
        content: '<p>x</p>',
        excerpt: '',
        categories: [],
        tags: [],
        publishAt: new Date(Date.now() + 86_400_000),
      },
    ]);
    // Queued for later (the worker of the first test is running), then run here.
    const later = new Date(Date.now() + 3_600_000);
    const [published] = await queuePublications(pro.id, [
      {
        siteId: pro.siteId,
        resultId: publishedId!,
        title: 'Row published',
        content: '<p>x</p>',
        excerpt: '',
        categories: [],
        tags: [],
        publishAt: later,
      },
    ]);
    await sql`UPDATE wordpress_publications SET publish_at = now() WHERE id = ${published!.id}`;
    expect(await runPublication(published!.id)).toBe('published');
    const wrong = await createSite(pro.id, {
      siteUrl: wp.url,
      username: wp.username,
      appPassword: 'wrong pass word 1234',
      isDefault: false,
    });
    const [failed] = await queuePublications(pro.id, [
      {
        siteId: wrong.id,
        resultId: failedId!,
        title: 'Row failed',
        content: '<p>x</p>',
        excerpt: '',
        categories: [],
        tags: [],
        publishAt: later,
      },
    ]);
    await sql`UPDATE wordpress_publications SET publish_at = now() WHERE id = ${failed!.id}`;
    // A retry first (the row says it is being retried, with the message), then the last attempt.
    await expect(runPublication(failed!.id)).rejects.toThrow();
    let html = await (await pro.client.get('/app?tab=results')).text();
    // Explained in the reader's language (from WordPress's error code), the site's own words as detail.
    expect(html).toMatch(
      /data-publication-status="queued"[^>]*>.*Retrying after 1 failed attempt:.*data-error-code="rest_not_logged_in"[^>]*>WordPress did not accept.*WordPress said: “You are not currently logged in\.”/s,
    );
    expect(await runPublication(failed!.id, { final: true })).toBe('failed');

    html = await (await pro.client.get('/app?tab=results')).text();
    // Each result's markup, from its row to the next.
    const row = (id: string) => html.split('data-testid="result"').find((chunk) => chunk.includes(`/app/publish/${id}"`))!;
    expect(row(scheduledId!)).toContain('data-publication-status="scheduled"');
    expect(row(scheduledId!)).toContain('To be published on');
    const link = (await sql<{ wp_link: string }[]>`SELECT wp_link FROM wordpress_publications WHERE id = ${published!.id}`)[0]!.wp_link;
    expect(row(publishedId!)).toContain('data-publication-status="published"');
    expect(row(publishedId!)).toContain(`href="${link}"`);
    expect(row(publishedId!)).toContain('View post');
    expect(row(failedId!)).toContain('data-publication-status="failed"');
    expect(row(failedId!)).toMatch(/Publishing to [^<]+ failed:.*not currently logged in/s);
    expect(row(plainId!)).not.toContain('result-publication');
    // Completed text results can be selected for bulk publishing (a GET form to the bulk page).
    expect(html).toContain('action="/app/publish-bulk"');
    expect(html.match(/name="ids"/g)).toHaveLength(4);
    void scheduled;

    // zh-HK
    const zh = await (await pro.client.get('/app?tab=results', { 'accept-language': 'zh-HK' })).text();
    expect(zh).toMatch(/發佈到 [^<]+ 失敗：/);
    expect(zh).toContain('查看文章');
  });

  it('the workspace WordPress tab: Pro and Pro (Ending) pick results to publish; Free users get the alert, the Pro badge and the upgrade prompt', async () => {
    for (const status of ['pro', 'canceled'] as const) {
      const user = await account(status, `tab-${status}`);
      await results(user.id, `Tab ${status}`, 2);
      const html = await (await user.client.get('/app?tab=wordpress')).text();
      expect(html).toContain('data-testid="integration-tab"');
      expect(html).toContain(`Tab ${status} 1`);
      expect(html).toContain('action="/app/publish-bulk"');
      expect(html).not.toContain('WordPress integration is a Pro feature');
    }
    const free = await account('free', 'tab-free');
    await results(free.id, 'Tab free', 1);
    const html = await (await free.client.get('/app?tab=wordpress')).text();
    expect(html).not.toContain('data-testid="integration-tab"');
    expect(html).toMatch(/role="alert"[^>]*>.*Pro Feature.*Publishing to WordPress is a Pro feature\./s);
    expect(html).toContain('WordPress integration is a Pro feature');
    expect(html).toContain('href="/subscription"');
    expect(html).not.toContain('Tab free 1');
    // The tab carries the Pro badge.
    const tabLink = html.slice(html.indexOf('href="/app?tab=wordpress"'), html.indexOf('</a>', html.indexOf('href="/app?tab=wordpress"')));
    expect(tabLink).toMatch(/WordPress integration.*>Pro</s);
    // Free users' results offer no bulk selection.
    expect(await (await free.client.get('/app?tab=results')).text()).not.toContain('name="ids"');
    const zh = await (await free.client.get('/app?tab=wordpress', { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('發佈到 WordPress 是 Pro 功能。');
  });
});

describe('categories and tags chosen per post', () => {
  it('the model chooses among the site’s own terms (never an invented one), shown for review; the edited choices are published', async () => {
    const pro = await account('pro', 'terms');
    const stamp = Date.now().toString(36);
    const termIds: Record<string, number> = {};
    for (const name of [`Gardening ${stamp}`, `Cooking ${stamp}`]) {
      termIds[name] = (
        await wp.rest<{ id: number }>('/wp/v2/categories', {
          method: 'POST',
          body: JSON.stringify({ name }),
          headers: { 'content-type': 'application/json' },
        })
      ).body.id;
    }
    for (const name of [`compost${stamp}`, `soup${stamp}`]) {
      await wp.rest('/wp/v2/tags', { method: 'POST', body: JSON.stringify({ name }), headers: { 'content-type': 'application/json' } });
    }
    const [garden, soup] = await results(pro.id, `Terms ${stamp}`, 2);
    await sql`UPDATE generation_results SET content = ${`<p>Gardening ${stamp} with compost${stamp}.</p>`} WHERE id = ${garden!}`;
    await sql`UPDATE generation_results SET content = ${`<p>Cooking ${stamp}: a soup${stamp} for winter.</p>`} WHERE id = ${soup!}`;
    const pageUrl = `/app/publish-bulk?ids=${garden},${soup}`;
    const before = openai.requests.length;

    // Without JavaScript: the button posts the form with intent=choose-terms; the page shows the review.
    const chosen = await form(pro.client, pageUrl, [
      ['intent', 'choose-terms'],
      ['siteId', String(pro.siteId)],
      ['resultIds', garden!],
      ['resultIds', soup!],
      ['mode', 'now'],
    ]);
    expect(chosen.status).toBe(200);
    const html = await chosen.text();
    // One model call per post, no credits asked for.
    expect(openai.requests.length - before).toBe(2);
    expect(html).toContain('Categories and tags per post');
    expect(html).toContain(`name="perPost[0].resultId" value="${garden}"`);
    // A checkbox of the review, as rendered: ticked when the model chose it.
    const checked = (i: number, id: number) =>
      (html.match(/<input[^>]*>/g) ?? []).some(
        (tag) => tag.includes(`name="perPost[${i}].categories"`) && tag.includes(`value="${id}"`) && /\schecked=/.test(tag),
      );
    expect(checked(0, termIds[`Gardening ${stamp}`]!)).toBe(true);
    expect(checked(0, termIds[`Cooking ${stamp}`]!)).toBe(false);
    expect(checked(1, termIds[`Cooking ${stamp}`]!)).toBe(true);
    expect(html).toMatch(new RegExp(`name="perPost\\[0\\]\\.tags"[^>]*value="compost${stamp}"`));
    expect(html).not.toContain('Invented by the model');

    // The single publish page has the same choice, for its one post (categories ticked, tags filled in).
    // What the user had typed comes back with the choice (without JavaScript the page is new).
    const single = await form(pro.client, `/app/publish/${garden}`, [
      ['intent', 'choose-terms'],
      ['siteId', String(pro.siteId)],
      ['title', `Typed title ${stamp}`],
      ['excerpt', `Typed excerpt ${stamp}`],
      ['metaDescription', `Typed description ${stamp}`],
    ]);
    expect(single.status).toBe(200);
    const singleHtml = await single.text();
    expect(singleHtml).toMatch(new RegExp(`name="title"[^>]*value="Typed title ${stamp}"`));
    expect(singleHtml).toContain(`>Typed excerpt ${stamp}</textarea>`);
    expect(singleHtml).toContain(`Typed description ${stamp}</textarea>`);
    const ticked = (singleHtml.match(/<input[^>]*>/g) ?? []).filter((tag) => tag.includes('name="categories"') && /\schecked=/.test(tag));
    expect(ticked.map((tag) => /value="(\d+)"/.exec(tag)![1])).toEqual([String(termIds[`Gardening ${stamp}`])]);
    expect(singleHtml).toMatch(new RegExp(`name="tags"[^>]*value="compost${stamp}"`));

    // The JSON API answers the same choices.
    const api = await pro.client.postJson('/api/wordpress/term-choices', { siteId: pro.siteId, resultIds: [garden, soup] });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { choices: { resultId: string; categories: number[]; tags: string[] }[]; failed: null };
    expect(body.failed).toBeNull();
    expect(body.choices).toEqual([
      { resultId: garden, title: `Terms ${stamp} 1`, categories: [termIds[`Gardening ${stamp}`]], tags: [`compost${stamp}`] },
      { resultId: soup, title: `Terms ${stamp} 2`, categories: [termIds[`Cooking ${stamp}`]], tags: [`soup${stamp}`] },
    ]);

    // The user edits the first post's choice (adds a tag of their own) and publishes.
    const res = await form(pro.client, pageUrl, [
      ['siteId', String(pro.siteId)],
      ['resultIds', garden!],
      ['resultIds', soup!],
      ['mode', 'now'],
      ['perPost[0].resultId', garden!],
      ['perPost[0].categories', String(termIds[`Gardening ${stamp}`])],
      ['perPost[0].tags', `compost${stamp}, mulch${stamp}`],
      ['perPost[1].resultId', soup!],
      ['perPost[1].categories', String(termIds[`Cooking ${stamp}`])],
      ['perPost[1].tags', `soup${stamp}`],
    ]);
    expect(res.status).toBe(302);
    const tagNames = async (ids: number[]) =>
      (await wp.rest<{ name: string }[]>(`/wp/v2/tags?include=${ids.join(',')}`)).body.map((t) => t.name).sort();
    for (const p of await publicationsOf(pro.id)) {
      // Run here, unless the worker an earlier test started took it first: either way it ends published.
      await runPublication(p.id);
      await waitFor(async () => (await publicationsOf(pro.id)).find((x) => x.id === p.id)!.status === 'published', 20_000);
      const postId = (await publicationsOf(pro.id)).find((x) => x.id === p.id)!.wp_post_id;
      const post = (await wp.rest<{ categories: number[]; tags: number[] }>(`/wp/v2/posts/${postId}?context=edit`)).body;
      if (p.result_id === garden) {
        expect(post.categories).toEqual([termIds[`Gardening ${stamp}`]]);
        expect(await tagNames(post.tags)).toEqual([`compost${stamp}`, `mulch${stamp}`]);
      } else {
        expect(post.categories).toEqual([termIds[`Cooking ${stamp}`]]);
        expect(await tagNames(post.tags)).toEqual([`soup${stamp}`]);
      }
    }
  });
});
