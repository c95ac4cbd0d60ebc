import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { createSession } from '../../app/services/sessions.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { startPeer, startProxy, type Peer, type Proxy } from '../support/http-peers';

// The test WordPress lives on 127.0.0.1 (the SSRF rule itself is tested in wordpress-ssrf.test.ts).
vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
  // No worker runs here (jobs are run by hand): publish-now answers 202 at once instead of waiting
  // for the site (the wait itself: wordpress-contract.test.ts).
  process.env.WORDPRESS_PUBLISH_WAIT_SECONDS = '0';
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

let app: TestApp;
let wp: WordPressSite;
let proxy: Proxy;
let notWp: Peer;
let wpHtml: Peer;

async function user(status: 'free' | 'pro' | 'canceled', label: string) {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${`wp-api-${label}-${Date.now()}@example.com`}, ${label}, ${status}) RETURNING id`;
  const client = new TestClient(app.url);
  const { setCookie } = await createSession(u!.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  return { id: u!.id, client };
}

function put(client: TestClient, path: string, body?: unknown) {
  return client.request(path, {
    method: 'PUT',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
  proxy = await startProxy(wp.url);
  notWp = await startPeer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>Just a plain site</body></html>');
  });
  wpHtml = await startPeer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><head><link rel="stylesheet" href="/wp-content/themes/x/style.css"></head><body>Not found</body></html>');
  });
}, 180_000);

afterAll(async () => {
  await Promise.all([app?.close(), proxy?.close(), notWp?.close(), wpHtml?.close()]);
  await wp?.stop();
});

describe('/api/wordpress', () => {
  it('is 401 when signed out', async () => {
    const anon = new TestClient(app.url);
    expect((await anon.get('/api/wordpress/sites')).status).toBe(401);
    expect((await anon.postJson('/api/wordpress/publish', {})).status).toBe(401);
  });

  it('sites: add (first is default), list without the password, edit, default, delete; owner only', async () => {
    const a = await user('pro', 'owner');
    const b = await user('pro', 'other');
    const bad = await a.client.postJson('/api/wordpress/sites', { siteUrl: 'not a url', username: '', appPassword: '' });
    expect(bad.status).toBe(400);
    const badBody = await bad.json();
    expect(badBody.fields.siteUrl).toEqual(['Please enter a valid WordPress site URL']);
    expect(badBody.fields.username).toEqual(['Username is required']);
    expect(badBody.fields.appPassword).toEqual(['Application password is required']);

    const res = await a.client.postJson('/api/wordpress/sites', {
      siteUrl: `${wp.url}/wp-admin/`,
      username: wp.username,
      appPassword: wp.appPassword,
      isDefault: false,
      siteName: 'ignored',
    });
    expect(res.status).toBe(201);
    const { site } = await res.json();
    expect(site).toMatchObject({ siteUrl: wp.url, siteName: new URL(wp.url).host, username: 'admin', isDefault: true });
    const second = (
      await (await a.client.postJson('/api/wordpress/sites', { siteUrl: proxy.url, username: 'admin', appPassword: wp.appPassword })).json()
    ).site;
    expect(second.isDefault).toBe(false);

    const list = await (await a.client.get('/api/wordpress/sites')).json();
    expect(list.sites.map((s: { id: number }) => s.id)).toEqual([site.id, second.id]);
    expect(JSON.stringify(list)).not.toContain(wp.appPassword);
    const [stored] = await sql<{ app_password_sealed: string }[]>`SELECT app_password_sealed FROM wordpress_sites WHERE id = ${site.id}`;
    expect(stored!.app_password_sealed).not.toContain(wp.appPassword.slice(0, 4));

    // Edit with a blank password keeps the stored one (the connection still works through it).
    const edited = await put(a.client, `/api/wordpress/sites/${second.id}`, {
      siteUrl: proxy.url,
      username: 'admin',
      appPassword: '',
      isDefault: true,
    });
    expect(edited.status).toBe(200);
    expect((await edited.json()).site.isDefault).toBe(true);
    expect(
      (await (await a.client.get('/api/wordpress/sites')).json()).sites.filter((s: { isDefault: boolean }) => s.isDefault),
    ).toHaveLength(1);
    expect((await put(a.client, `/api/wordpress/sites/${site.id}/default`)).status).toBe(200);
    expect((await (await a.client.get('/api/wordpress/sites')).json()).sites[0]).toMatchObject({ id: site.id, isDefault: true });
    const cats = await (await a.client.get(`/api/wordpress/sites/${second.id}/categories`)).json();
    expect(cats.categories.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['News', 'Guides', 'Uncategorized']));

    // Another user: 404 everywhere.
    expect((await b.client.get(`/api/wordpress/sites/${site.id}`)).status).toBe(404);
    expect((await put(b.client, `/api/wordpress/sites/${site.id}`, { siteUrl: wp.url, username: 'x', appPassword: 'y' })).status).toBe(404);
    expect((await put(b.client, `/api/wordpress/sites/${site.id}/default`)).status).toBe(404);
    expect((await b.client.get(`/api/wordpress/sites/${site.id}/categories`)).status).toBe(404);
    expect((await b.client.request(`/api/wordpress/sites/${site.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(
      (await b.client.postJson('/api/wordpress/publish', { siteId: site.id, title: 't', content: 'c', status: 'publish' })).status,
    ).toBe(404);
    expect((await b.client.get('/api/wordpress/sites/abc')).status).toBe(404);

    expect((await a.client.request(`/api/wordpress/sites/${second.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await (await a.client.get('/api/wordpress/sites')).json()).sites).toHaveLength(1);
  });

  it('test connection: good, wrong password, not WordPress, REST API off, stripped header, missing fields', async () => {
    const { client } = await user('free', 'tester');
    const test = async (body: Record<string, string>) => (await client.postJson('/api/wordpress/test-connection', body)).json();
    expect(await test({ siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })).toEqual({
      success: true,
      message: 'Connection successful! WordPress site is properly configured.',
      // The companion SEO plugin is not installed on this site.
      seoPlugin: false,
    });
    const wrong = await test({ siteUrl: wp.url, username: wp.username, appPassword: 'aaaa bbbb cccc dddd eeee ffff' });
    expect(wrong).toMatchObject({
      success: false,
      message: 'Connection failed. Please check your credentials and try again.',
      diagnosis: { code: 'auth_rejected' },
    });
    expect(wrong.diagnosis.hint).toMatch(/Authorization header/);
    expect(await test({ siteUrl: notWp.url, username: 'a', appPassword: 'b' })).toMatchObject({
      success: false,
      message: 'Invalid response from WordPress site. Make sure the URL points to a WordPress installation.',
      diagnosis: { code: 'not_wordpress' },
    });
    expect(await test({ siteUrl: wpHtml.url, username: 'a', appPassword: 'b' })).toMatchObject({
      success: false,
      message: 'Invalid response from the server. Make sure your WordPress site URL is correct and has REST API enabled.',
      diagnosis: { code: 'rest_disabled' },
    });
    proxy.stripAuthorization = true;
    try {
      expect(await test({ siteUrl: proxy.url, username: wp.username, appPassword: wp.appPassword })).toMatchObject({
        success: false,
        diagnosis: { code: 'auth_rejected' },
      });
    } finally {
      proxy.stripAuthorization = false;
    }
    const closed = await startPeer(() => undefined);
    const closedUrl = closed.url;
    await closed.close();
    expect(await test({ siteUrl: closedUrl, username: 'a', appPassword: 'b' })).toMatchObject({
      success: false,
      diagnosis: { code: 'refused' },
    });
    const missing = await client.postJson('/api/wordpress/test-connection', { siteUrl: wp.url, username: '', appPassword: '' });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe('Please fill in all required fields before testing the connection');
    // zh-HK
    const zh = await client.postJson(
      '/api/wordpress/test-connection',
      { siteUrl: notWp.url, username: 'a', appPassword: 'b' },
      { 'accept-language': 'zh-HK' },
    );
    expect((await zh.json()).message).toBe('WordPress 網站回應無效。請確認網址指向 WordPress 網站。');
    // A REST index without wp/v2: the detail is what we read in it, in the reader's language.
    const noPosts = await startPeer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ namespaces: ['oembed/1.0'], authentication: {} }));
    });
    try {
      const site = { siteUrl: noPosts.url, username: 'a', appPassword: 'b' };
      expect(await test(site)).toMatchObject({
        success: false,
        diagnosis: { code: 'rest_disabled', detail: "The site's REST API does not offer wp/v2 (posts, media and users)." },
      });
      const zhNoPosts = await client.postJson('/api/wordpress/test-connection', site, { 'accept-language': 'zh-HK' });
      expect((await zhNoPosts.json()).diagnosis.detail).toBe('網站的 REST API 沒有提供 wp/v2（文章、媒體及用戶）。');
    } finally {
      await noPosts.close();
    }
  });

  it('publish: Free refused (403), Pro queued then published, scheduled listed, moved and canceled', async () => {
    const free = await user('free', 'free-pub');
    const pro = await user('canceled', 'ending-pub');
    const siteFree = (
      await (
        await free.client.postJson('/api/wordpress/sites', { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })
      ).json()
    ).site;
    const refused = await free.client.postJson('/api/wordpress/publish', {
      siteId: siteFree.id,
      title: 'Free post',
      content: '<p>x</p>',
      status: 'publish',
    });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe('Publishing to WordPress is a Pro feature.');
    expect(await sql`SELECT 1 FROM wordpress_publications WHERE user_id = ${free.id}`).toHaveLength(0);

    const site = (
      await (
        await pro.client.postJson('/api/wordpress/sites', { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })
      ).json()
    ).site;
    const invalid = await pro.client.postJson('/api/wordpress/publish', { siteId: 0, title: '', content: '' });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).fields).toMatchObject({
      siteId: ['Please select a WordPress site'],
      title: ['Title is required'],
      content: ['Content is required'],
    });

    // A meta description over 155 characters, in the reader's language.
    const long = { siteId: site.id, title: 't', content: '<p>c</p>', status: 'publish', metaDescription: 'x'.repeat(156) };
    const tooLong = await pro.client.postJson('/api/wordpress/publish', long);
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).fields).toEqual({ metaDescription: ['The meta description must be at most 155 characters.'] });
    const tooLongZh = await pro.client.postJson('/api/wordpress/publish', long, { 'accept-language': 'zh-HK' });
    expect((await tooLongZh.json()).fields).toEqual({ metaDescription: ['Meta 描述最多只可有 155 個字元。'] });

    const res = await pro.client.postJson('/api/wordpress/publish', {
      resultId: null,
      siteId: site.id,
      title: 'API post',
      content: '<html><body><p>From the API</p></body></html>',
      excerpt: 'ex',
      categories: [],
      tags: [],
      status: 'publish',
      publishDate: null,
      featured: false,
    });
    expect(res.status).toBe(202);
    const queued = await res.json();
    expect(queued).toMatchObject({ success: true, queued: true, status: 'queued' });
    expect(await runPublication(queued.publicationId)).toBe('published');
    const done = await (await pro.client.get(`/api/wordpress/scheduled/${queued.publicationId}`)).json();
    expect(done.publication).toMatchObject({ status: 'published' });
    const post = await wp.rest<{ content: { raw: string }; status: string }>(`/wp/v2/posts/${done.publication.postId}?context=edit`);
    expect(post.body.status).toBe('publish');
    expect(post.body.content.raw).toContain('<p>From the API</p>');
    expect(post.body.content.raw).not.toContain('<body>');

    const later = new Date(Date.now() + 86_400_000).toISOString();
    const future = await (
      await pro.client.postJson('/api/wordpress/publish', {
        siteId: site.id,
        title: 'Later post',
        content: 'Later',
        status: 'future',
        publishDate: later,
      })
    ).json();
    const list = await (await pro.client.get('/api/wordpress/scheduled')).json();
    expect(list.scheduled).toEqual([
      expect.objectContaining({ id: future.publicationId, title: 'Later post', publishAt: later, status: 'queued' }),
    ]);
    const movedTo = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const moved = await put(pro.client, `/api/wordpress/scheduled/${future.publicationId}`, { publishAt: movedTo });
    expect((await moved.json()).publication.publishAt).toBe(movedTo);
    // Another user cannot see, move or cancel it.
    expect((await free.client.get(`/api/wordpress/scheduled/${future.publicationId}`)).status).toBe(404);
    expect((await free.client.request(`/api/wordpress/scheduled/${future.publicationId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await pro.client.request(`/api/wordpress/scheduled/${future.publicationId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await (await pro.client.get('/api/wordpress/scheduled')).json()).scheduled).toEqual([]);
    const [jobs] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'wordpress-publish' AND data->>'publicationId' = ${future.publicationId} AND state IN ('created', 'retry')`;
    expect(jobs!.n).toBe(0);
  });

  it("an unknown or another user's publication is named: 404 'Publication not found.' (en, zh-HK), on the API and the page", async () => {
    const owner = await user('pro', 'pub-owner');
    const other = await user('pro', 'pub-other');
    const site = (
      await (
        await owner.client.postJson('/api/wordpress/sites', { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })
      ).json()
    ).site;
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const { publicationId } = await (
      await owner.client.postJson('/api/wordpress/publish', {
        siteId: site.id,
        title: 'Mine',
        content: 'x',
        status: 'future',
        publishDate: later,
      })
    ).json();
    const en = { error: 'Publication not found.' };
    for (const [client, id] of [
      [other.client, publicationId],
      [owner.client, crypto.randomUUID()],
      [owner.client, 'not-a-publication'],
    ] as const) {
      const path = `/api/wordpress/scheduled/${id}`;
      for (const res of [
        await client.get(path),
        await put(client, path, { publishAt: later }),
        await client.request(path, { method: 'DELETE' }),
      ]) {
        expect(res.status, `${res.url}`).toBe(404);
        expect(await res.json(), id).toEqual(en);
      }
    }
    const zh = await other.client.get(`/api/wordpress/scheduled/${publicationId}`, { 'accept-language': 'zh-HK' });
    expect(await zh.json()).toEqual({ error: '找不到此發佈項目。' });
    // The sites page's cancel button, posted for someone else's publication: the toast names it too.
    const canceled = await other.client.postForm('/wordpress', { intent: 'cancel-scheduled', publicationId });
    expect(canceled.status).toBe(302);
    expect(await (await other.client.get(canceled.headers.get('location')!)).text()).toContain('Publication not found.');
    // And the owner's publication still waits.
    expect((await (await owner.client.get(`/api/wordpress/scheduled/${publicationId}`)).json()).publication.status).toBe('queued');
  });

  it('upload-image: to the media library, or inline without a site', async () => {
    const pro = await user('pro', 'uploader');
    const site = (
      await (
        await pro.client.postJson('/api/wordpress/sites', { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })
      ).json()
    ).site;
    const up = await (
      await pro.client.postJson('/api/wordpress/upload-image', {
        siteId: site.id,
        imageBase64: `data:image/png;base64,${PNG.toString('base64')}`,
        filename: 'dot.png',
        mimeType: 'image/png',
      })
    ).json();
    expect(up.success).toBe(true);
    expect(up.url).toMatch(/\/wp-content\/uploads\/.*dot.*\.png$/);
    const fetched = Buffer.from(await (await fetch(up.url)).arrayBuffer());
    expect(fetched.equals(PNG)).toBe(true);
    const inline = await (
      await pro.client.postJson('/api/wordpress/upload-image', {
        imageBase64: PNG.toString('base64'),
        filename: 'dot.png',
        mimeType: 'image/png',
      })
    ).json();
    expect(inline).toMatchObject({ success: false, inline: true, url: `data:image/png;base64,${PNG.toString('base64')}` });
    const other = await user('pro', 'uploader-2');
    expect(
      (
        await other.client.postJson('/api/wordpress/upload-image', {
          siteId: site.id,
          imageBase64: PNG.toString('base64'),
          filename: 'a.png',
          mimeType: 'image/png',
        })
      ).status,
    ).toBe(404);
  });

  it("the publish page of a completed result queues it with the result's image as featured image (plain form post)", async () => {
    const pro = await user('pro', 'page-pub');
    const site = (
      await (
        await pro.client.postJson('/api/wordpress/sites', { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })
      ).json()
    ).site;
    const [run] = await sql<
      { id: string }[]
    >`INSERT INTO generation_runs (user_id, type, model, total) VALUES (${pro.id}, 'text', 'm', 1) RETURNING id`;
    const [result] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
      VALUES (${pro.id}, ${run!.id}, 0, 'text', 'topic', 'Generated title', '<p>Generated body</p>', 'completed', 'm', 1) RETURNING id`;
    await sql`INSERT INTO generation_images (user_id, result_id, content_type, bytes) VALUES (${pro.id}, ${result!.id}, 'image/png', ${PNG})`;
    const page = await pro.client.get(`/app/publish/${result!.id}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Generated title');
    expect(html).toContain('News');
    const other = await user('pro', 'page-other');
    expect((await other.client.get(`/app/publish/${result!.id}`)).status).toBe(404);
    const res = await pro.client.postForm(`/app/publish/${result!.id}`, {
      siteId: String(site.id),
      mode: 'now',
      tz: 'UTC',
      title: 'Page post',
      content: '<p>Edited body</p>',
      excerpt: '',
      tags: 'one, two',
      featured: 'on',
    });
    expect(res.status).toBe(302);
    // The featured image is named by the stored image (uploaded once per site), not copied.
    const [image] = await sql<{ id: string }[]>`SELECT id FROM generation_images WHERE result_id = ${result!.id}`;
    const [pub] = await sql<
      { id: string; featured_image_id: string | null }[]
    >`SELECT id, featured_image_id FROM wordpress_publications WHERE result_id = ${result!.id}`;
    expect(pub!.featured_image_id).toBe(image!.id);
    expect(await runPublication(pub!.id)).toBe('published');
  });

  it('an image result published as a post through the API is the post the page makes: its image in a figure, uploaded', async () => {
    const pro = await user('pro', 'api-image');
    const site = (
      await (
        await pro.client.postJson('/api/wordpress/sites', { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword })
      ).json()
    ).site;
    const [run] = await sql<
      { id: string }[]
    >`INSERT INTO generation_runs (user_id, type, model, total) VALUES (${pro.id}, 'image', 'black-forest-labs/flux-schnell', 1) RETURNING id`;
    const [result] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, status, model, credits)
      VALUES (${pro.id}, ${run!.id}, 0, 'image', 'a red bicycle', 'A red bicycle', 'completed', 'black-forest-labs/flux-schnell', 1) RETURNING id`;
    const [image] = await sql<{ id: string }[]>`
      INSERT INTO generation_images (user_id, result_id, content_type, bytes) VALUES (${pro.id}, ${result!.id}, 'image/png', ${PNG}) RETURNING id`;
    await sql`UPDATE generation_results SET content = ${`/images/${image!.id}`} WHERE id = ${result!.id}`;
    // What a script has at hand: the result as GET /api/results/{id} gives it, content and all.
    const got = (await (await pro.client.get(`/api/results/${result!.id}`)).json()) as { content: string; title: string };
    const res = await pro.client.postJson('/api/wordpress/publish', {
      resultId: result!.id,
      siteId: site.id,
      title: got.title,
      content: got.content,
      status: 'publish',
      featured: true,
    });
    expect(res.status).toBe(202);
    const queued = (await res.json()) as { publicationId: string };
    expect(await runPublication(queued.publicationId)).toBe('published');
    const done = (await (await pro.client.get(`/api/wordpress/scheduled/${queued.publicationId}`)).json()) as {
      publication: { postId: number };
    };
    const post = await wp.rest<{ content: { raw: string }; featured_media: number }>(
      `/wp/v2/posts/${done.publication.postId}?context=edit`,
    );
    expect(post.body.content.raw).toMatch(/<figure[^>]*>\s*<img[^>]+src="http[^"]+"/);
    expect(post.body.content.raw).not.toContain('/images/');
    expect(post.body.featured_media).toBeGreaterThan(0);
  });
});
