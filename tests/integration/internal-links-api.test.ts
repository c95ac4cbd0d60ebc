import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { createApiToken } from '../../app/services/api-tokens.server';
import { operations } from '../../app/http/api-document.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { createGenUser } from '../support/generation';
import { signedInClient } from '../support/input-tools';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import type { ZodTypeAny } from 'zod';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

// Internal links over the JSON API, through the compiled app (run `npx remix
// build` first): the per-site switch of /api/wordpress/sites (against the real WordPress), a run's
// settings and links (GET/PUT /api/jobs/{id}/links), linking one post again, removing a link for
// good; a bearer token works as a session does; another user's anything is 404, bad input is 400,
// each in the caller's language; answers have the documented shapes.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let app: TestApp;
let wp: WordPressSite;

beforeAll(async () => {
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await wp?.stop();
});

const SUBJECTS = ['espresso', 'sourdough', 'kombucha', 'croissant', 'matcha', 'ramen'];

/** A completed text run of six posts, each about one subject and mentioning the next two. */
async function seedRun(userId: string) {
  const [r] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, 'text', 'm', ${SUBJECTS.length}) RETURNING id`;
  const ids: string[] = [];
  for (const [i, s] of SUBJECTS.entries()) {
    const a = SUBJECTS[(i + 1) % SUBJECTS.length]!;
    const b = SUBJECTS[(i + 2) % SUBJECTS.length]!;
    const title = `${s[0]!.toUpperCase()}${s.slice(1)} at home`;
    const content = `<p>Welcome to ${s}. Good ${s} pairs with ${a} on weekends.</p><p>Some prefer ${b} at night, or ${a} at noon.</p>`;
    const [row] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, search_text, completed_at)
      VALUES (${userId}, ${r!.id}, ${i + 1}, 'text', ${s}, ${title}, ${content}, 'completed', 'm', 1,
        ${`${title} Good ${s} pairs with ${a}. Some prefer ${b}.`}, now()) RETURNING id`;
    ids.push(row!.id);
  }
  return { runId: r!.id, ids };
}

type Link = {
  id: string;
  resultId: string;
  anchor: string;
  sentence: string;
  targetUrl: string | null;
  targetSlug: string | null;
  removedAt: string | null;
};
type RunLinks = {
  runId: string;
  settings: { enabled: boolean; count: number; sitePosts: boolean; siteId: number | null; linkedAt: string | null };
  results: { resultId: string; links: Link[] }[];
};

const documented = (path: string, method: string) =>
  operations.find((o) => o.path === path && o.method === method)!.response!.schema as ZodTypeAny;
function expectShape(path: string, method: string, body: unknown) {
  const parsed = documented(path, method).safeParse(body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
}

/** The files of a ZIP, read through its central directory (yazl streams entries with data descriptors). */
function unzip(zip: Buffer): Map<string, string> {
  const files = new Map<string, string>();
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(end + 16);
  for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    files.set(name, (method === 8 ? zlib.inflateRawSync(data) : data).toString('utf8'));
    at += 46 + skip;
  }
  return files;
}

function send(c: TestClient, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return c.request(path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('the per-site switch over /api/wordpress/sites', () => {
  it('is on for a new site unless said, changes on PUT, and is kept when PUT leaves it out', async () => {
    const user = await createGenUser(sql, { label: 'links-sites' });
    const c = await signedInClient(app.url, user.id);
    const creds = { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword };
    const added = await c.postJson('/api/wordpress/sites', { ...creds, isDefault: true });
    expect(added.status).toBe(201);
    const { site } = (await added.json()) as { site: { id: number; internalLinks: boolean } };
    expect(site.internalLinks).toBe(true);

    const off = await send(c, 'PUT', `/api/wordpress/sites/${site.id}`, { ...creds, isDefault: true, internalLinks: false });
    expect(((await off.json()) as { site: { internalLinks: boolean } }).site.internalLinks).toBe(false);
    const kept = await send(c, 'PUT', `/api/wordpress/sites/${site.id}`, { ...creds, isDefault: true });
    expect(((await kept.json()) as { site: { internalLinks: boolean } }).site.internalLinks).toBe(false);
    expect(
      ((await (await c.get(`/api/wordpress/sites/${site.id}`)).json()) as { site: { internalLinks: boolean } }).site.internalLinks,
    ).toBe(false);
    const listed = (await (await c.get('/api/wordpress/sites')).json()) as { sites: { id: number; internalLinks: boolean }[] };
    expect(listed.sites).toEqual([expect.objectContaining({ id: site.id, internalLinks: false })]);

    const second = await c.postJson('/api/wordpress/sites', {
      ...creds,
      siteUrl: wp.url.replace('127.0.0.1', 'localhost'),
      isDefault: false,
      internalLinks: 'false',
    });
    expect(((await second.json()) as { site: { internalLinks: boolean } }).site.internalLinks).toBe(false);
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM wordpress_sites WHERE user_id = ${user.id} AND link_enabled`;
    expect(row!.n).toBe(0);

    // Refresh posts pressed three times at once: each answer is the whole list, the cache holds it once.
    const answers = await Promise.all([1, 2, 3].map(() => c.postJson(`/api/wordpress/sites/${site.id}/posts`, {})));
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as { posts: { wpPostId: number }[]; refreshedAt: string }[];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const published = await wp.rest<unknown[]>('/wp/v2/posts?per_page=100&status=publish');
    for (const b of bodies)
      expect(b.posts.map((p) => p.wpPostId).sort()).toEqual(published.body.map((p) => (p as { id: number }).id).sort());
    const [cached] = await sql<{ n: number; distinct: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT wp_post_id)::int AS distinct FROM wordpress_site_posts WHERE site_id = ${site.id}`;
    expect(cached).toEqual({ n: published.body.length, distinct: published.body.length });
    // Another user cannot read or refresh it.
    const stranger = await signedInClient(app.url, (await createGenUser(sql, { label: 'links-sites-stranger' })).id);
    expect((await stranger.postJson(`/api/wordpress/sites/${site.id}/posts`, {})).status).toBe(404);
  }, 60_000);
});

describe('Refresh posts when the site does not answer as WordPress', () => {
  it('tells why in the user’s language: the page’s toast and the API’s diagnosis; nothing is cached', async () => {
    const user = await createGenUser(sql, { label: 'links-notwp' });
    const c = await signedInClient(app.url, user.id);
    // This app itself: its answer to the REST route is a web page, not a list of posts. (The test
    // WordPress serves published posts whatever the credentials, so a wrong password cannot fail here.)
    const added = await c.postJson('/api/wordpress/sites', { siteUrl: app.url, username: 'admin', appPassword: 'abcd efgh ijkl mnop' });
    const { site } = (await added.json()) as { site: { id: number } };
    const zh = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'app/locales/zh-HK/wordpress.json'), 'utf8')) as {
      diagnosis: Record<string, string>;
      sites: Record<string, string>;
    };

    const api = await c.postJson(`/api/wordpress/sites/${site.id}/posts`, {}, { 'accept-language': 'zh-HK' });
    expect(api.status).toBe(502);
    const body = (await api.json()) as { diagnosis: { code: string; hint: string } };
    expect(body.diagnosis.code).toBe('not_wordpress');
    expect(body.diagnosis.hint).toBe(zh.diagnosis[body.diagnosis.code]);

    // The page without JavaScript: a form post, a redirect, the toast on the page it leads to.
    const posted = await c.postForm('/wordpress', { intent: 'refresh-posts', siteId: String(site.id) }, { 'accept-language': 'zh-HK' });
    expect([302, 303]).toContain(posted.status);
    expect(posted.headers.get('location')).toBe('/wordpress');
    const page = await (await c.get('/wordpress', { 'accept-language': 'zh-HK' })).text();
    expect(page).toContain(zh.sites.refreshFailed);
    expect(page).toContain(zh.diagnosis[body.diagnosis.code]);
    expect(page).toContain(zh.sites.postsNever);
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM wordpress_site_posts WHERE site_id = ${site.id}`;
    expect(row!.n).toBe(0);
  }, 60_000);
});

describe('a run’s links over the JSON API', () => {
  it('reads, re-links with new settings, re-links one post and removes a link for good, with a bearer token', async () => {
    const user = await createGenUser(sql, { label: 'links-api' });
    const { token } = await createApiToken(user.id, { name: 'links', expiresAt: null });
    const c = new TestClient(app.url, { authorization: `Bearer ${token}`, 'accept-language': 'en' });
    const { runId, ids } = await seedRun(user.id);

    const first = (await (await c.get(`/api/jobs/${runId}/links`)).json()) as RunLinks;
    expectShape('/api/jobs/{id}/links', 'get', first);
    expect(first.settings).toEqual({ enabled: true, count: 3, sitePosts: true, siteId: null, linkedAt: null });
    expect(first.results.map((r) => r.resultId)).toEqual(ids);
    expect(first.results.every((r) => r.links.length === 0)).toBe(true);

    // New settings, the whole run linked again: at most two links each, among its own posts by slug.
    const put = await send(c, 'PUT', `/api/jobs/${runId}/links`, { count: 2, sitePosts: false });
    expect(put.status).toBe(200);
    const linked = (await put.json()) as RunLinks & { linked: number };
    expectShape('/api/jobs/{id}/links', 'put', linked);
    expect(linked.settings).toMatchObject({ enabled: true, count: 2, sitePosts: false, siteId: null });
    expect(linked.settings.linkedAt).toBeTruthy();
    expect(linked.linked).toBeGreaterThanOrEqual(ids.length);
    for (const r of linked.results) {
      expect(r.links.length).toBeGreaterThan(0);
      expect(r.links.length).toBeLessThanOrEqual(2);
      for (const l of r.links) {
        expect(l.sentence).toContain(l.anchor);
        expect(l.targetUrl).toBeNull();
        expect(l.targetSlug).toMatch(/-at-home$/);
      }
    }

    // Remove one link; removing it again changes nothing; re-linking the post never brings it back.
    const target = linked.results[0]!.links[0]!;
    const del = `/api/results/${ids[0]}/links/${target.id}`;
    expect(await (await send(c, 'DELETE', del)).json()).toEqual({ success: true });
    expect((await send(c, 'DELETE', del)).status).toBe(200);
    const relinked = await send(c, 'POST', `/api/results/${ids[0]}/links`);
    expect(relinked.status).toBe(200);
    const one = (await relinked.json()) as { resultId: string; linked: number; links: Link[] };
    expectShape('/api/results/{id}/links', 'post', one);
    expect(one.links.filter((l) => l.id === target.id)).toEqual([expect.objectContaining({ removedAt: expect.any(String) })]);
    expect(one.links.filter((l) => !l.removedAt && l.anchor === target.anchor && l.targetSlug === target.targetSlug)).toEqual([]);
    const read = (await (await c.get(`/api/results/${ids[0]}/links`)).json()) as { links: Link[] };
    expectShape('/api/results/{id}/links', 'get', read);
    expect(read.links).toEqual(one.links);
    // The other posts were not touched by re-linking one.
    const after = (await (await c.get(`/api/jobs/${runId}/links`)).json()) as RunLinks;
    expect(after.results.slice(1)).toEqual(linked.results.slice(1));

    // Downloads list each post's kept links after its text (relative slugs: this run has no site), in
    // the caller's language; the removed one is not there.
    const line = (l: Link) => `- ${l.anchor} → /${l.targetSlug}/`;
    const kept = one.links.filter((l) => !l.removedAt);
    expect(kept.length).toBeGreaterThan(0);
    const txt = await (await c.get(`/api/results/${ids[0]}/download`)).text();
    expect(txt).toContain(`\n\nInternal links:\n${kept.map(line).join('\n')}\n`);
    expect(txt).not.toContain(line(target));
    const zhTxt = await (await c.get(`/api/results/${ids[0]}/download`, { 'accept-language': 'zh-HK' })).text();
    expect(zhTxt).toContain(`\n\n內部連結:\n${kept.map(line).join('\n')}\n`);
    const zip = Buffer.from(await (await c.get('/api/results/download-all?type=text')).arrayBuffer());
    const all = unzip(zip).get('text_results.txt')!;
    // Each post's part of the file (under its prompt) lists exactly its kept links.
    for (const [i, r] of after.results.entries()) {
      const part = all.split(`==================== ${SUBJECTS[i]} ====================`)[1]!.split('====================')[0]!;
      const keptHere = r.links.filter((l) => !l.removedAt);
      if (keptHere.length === 0) expect(part).not.toContain('Internal links:');
      else expect(part).toContain(`\nInternal links:\n${keptHere.map(line).join('\n')}\n`);
      for (const l of r.links.filter((x) => x.removedAt)) expect(part).not.toContain(line(l));
    }

    // Off: kept links withdrawn, the removed one stays recorded.
    const offed = (await (await send(c, 'PUT', `/api/jobs/${runId}/links`, { enabled: false })).json()) as RunLinks & { linked: number };
    expect(offed.linked).toBe(0);
    expect(offed.settings).toMatchObject({ enabled: false, count: 2, sitePosts: false });
    expect(offed.results[0]!.links).toEqual([expect.objectContaining({ id: target.id, removedAt: expect.any(String) })]);
    expect(offed.results.slice(1).every((r) => r.links.length === 0)).toBe(true);
  }, 60_000);

  it('refuses bad input and what is not the caller’s, in the caller’s language', async () => {
    const owner = await createGenUser(sql, { label: 'links-owner' });
    const stranger = await createGenUser(sql, { label: 'links-stranger' });
    const { runId, ids } = await seedRun(owner.id);
    const c = await signedInClient(app.url, owner.id);
    const s = await signedInClient(app.url, stranger.id);
    await send(c, 'PUT', `/api/jobs/${runId}/links`, {});
    const links = ((await (await c.get(`/api/jobs/${runId}/links`)).json()) as RunLinks).results;
    const someLink = links.find((r) => r.links.length > 0)!;

    // Validation: count out of range, a site that is not a number; the message in each language.
    const tooMany = await send(c, 'PUT', `/api/jobs/${runId}/links`, { count: 11 }, { 'accept-language': 'en' });
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { fields: Record<string, string[]> }).fields.count).toEqual([
      'Links per post must be a whole number from 1 to 10.',
    ]);
    const zh = await send(c, 'PUT', `/api/jobs/${runId}/links`, { count: 0 }, { 'accept-language': 'zh-HK' });
    expect(((await zh.json()) as { fields: Record<string, string[]> }).fields.count).toEqual(['每篇文章的連結數目須為 1 至 10 的整數。']);
    expect((await send(c, 'PUT', `/api/jobs/${runId}/links`, { siteId: 'abc' })).status).toBe(400);
    expect((await send(c, 'PUT', `/api/jobs/${runId}/links`, [1, 2])).status).toBe(400);
    // Nothing was saved by a refused PUT.
    expect(((await (await c.get(`/api/jobs/${runId}/links`)).json()) as RunLinks).settings.count).toBe(3);

    // Another user's site, run, result or link: 404 with the message of what was not found.
    const [site] = await sql<{ id: string }[]>`
      INSERT INTO wordpress_sites (user_id, site_url, site_name, username, app_password_sealed)
      VALUES (${stranger.id}, 'https://stranger.example.com', 'stranger.example.com', 'x', 'x') RETURNING id`;
    const foreignSite = await send(c, 'PUT', `/api/jobs/${runId}/links`, { siteId: Number(site!.id) }, { 'accept-language': 'en' });
    expect(foreignSite.status).toBe(404);
    expect(await foreignSite.json()).toEqual({ error: 'Site not found.' });
    const job = await s.get(`/api/jobs/${runId}/links`, { 'accept-language': 'en' });
    expect(job.status).toBe(404);
    expect(await job.json()).toEqual({ error: 'Job not found.' });
    expect((await send(s, 'PUT', `/api/jobs/${runId}/links`, { count: 2 })).status).toBe(404);
    expect((await send(s, 'POST', `/api/results/${ids[0]}/links`)).status).toBe(404);
    expect((await s.get(`/api/results/${ids[0]}/links`)).status).toBe(404);
    const foreignLink = await send(s, 'DELETE', `/api/results/${someLink.resultId}/links/${someLink.links[0]!.id}`, undefined, {
      'accept-language': 'zh-HK',
    });
    expect(foreignLink.status).toBe(404);
    expect(await foreignLink.json()).toEqual({ error: '找不到連結。' });
    // A link of another post of one's own run, and ids that are not ids.
    const other = ids.find((id) => id !== someLink.resultId)!;
    const wrongPost = await send(c, 'DELETE', `/api/results/${other}/links/${someLink.links[0]!.id}`, undefined, {
      'accept-language': 'en',
    });
    expect(wrongPost.status).toBe(404);
    expect(await wrongPost.json()).toEqual({ error: 'Link not found.' });
    expect((await c.get('/api/jobs/not-a-uuid/links')).status).toBe(404);
    expect((await send(c, 'POST', '/api/results/not-a-uuid/links')).status).toBe(404);
    expect((await send(c, 'DELETE', `/api/results/${other}/links/not-a-uuid`)).status).toBe(404);
    // The link is still there for its owner.
    const still = ((await (await c.get(`/api/results/${someLink.resultId}/links`)).json()) as { links: Link[] }).links;
    expect(still.find((l) => l.id === someLink.links[0]!.id)?.removedAt).toBeNull();

    // An image result cannot be linked; without credentials: 401; a wrong method: 405.
    const [img] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, status, model, credits, content)
      VALUES (${owner.id}, ${runId}, 99, 'image', 'a picture', 'completed', 'm', 1, '/images/x') RETURNING id`;
    const image = await send(c, 'POST', `/api/results/${img!.id}/links`, undefined, { 'accept-language': 'en' });
    expect(image.status).toBe(409);
    expect(await image.json()).toEqual({ error: 'Only completed text results can be linked.' });
    expect((await new TestClient(app.url).get(`/api/jobs/${runId}/links`)).status).toBe(401);
    expect((await send(c, 'POST', `/api/jobs/${runId}/links`)).status).toBe(405);
    expect((await c.get(`/api/results/${ids[0]}/links/${someLink.links[0]!.id}`)).status).toBe(405);
  }, 60_000);
});
