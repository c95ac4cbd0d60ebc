import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { createSession } from '../../app/services/sessions.server';
import { getPublication, queuePublications, queuePublish, type PublishRequest } from '../../app/services/wordpress/publications.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { queueBulkPublications } from '../../app/services/wordpress/bulk.server';
import { calendar, moveScheduled, pauseDrip, resumeDrip, saveDripSchedule } from '../../app/services/wordpress/drip.server';
import { mirrorSchedule } from '../../app/services/wordpress/schedule-mirror.server';
import {
  cancelPublication,
  countScheduledAfter,
  listScheduled,
  reschedulePublication,
} from '../../app/services/wordpress/schedules.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { createEndpoint } from '../../app/services/webhooks.server';
import { shownStatus } from '../../app/utils/publication-state';
import { bulkPublishSchema, publishSchema } from '../../app/utils/wordpress-schemas';
import { dripSchema } from '../../app/utils/drip-schemas';
import { instantToZoned } from '../../app/utils/zoned-time';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { freePorts } from '../../db/embedded';
import { startProxy, type Proxy } from '../support/http-peers';

// The publishing pages against a real WordPress, as plain form posts (what a
// browser without JavaScript sends): publishing a result again asks "update or new"; Save after
// Test connection keeps the tested password; scheduled times name their zone and the site's;
// "retry now" after an outage; WordPress's English error text explained in the user's language;
// cancelling Pro warns of scheduled posts after the period end. Then, with the services called by
// hand: statuses reported truly, updates, bulk and drip statuses, posts on WordPress's own schedule.
vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
  // No worker runs here (jobs are run by hand): publish-now answers 202 at once instead of waiting
  // for the site (the wait itself: wordpress-contract.test.ts).
  process.env.WORDPRESS_PUBLISH_WAIT_SECONDS = '0';
});

let app: TestApp;
let wp: WordPressSite;
let proxy: Proxy;

async function user(status: 'free' | 'pro' | 'canceled', label: string, headers: Record<string, string> = {}) {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${`wp-review-${label}-${Date.now()}@example.com`}, ${label}, ${status}) RETURNING id`;
  await grantSignupCredits(u!.id);
  const client = new TestClient(app.url, headers);
  const { setCookie } = await createSession(u!.id);
  const pair = setCookie.split(';')[0]!;
  client.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  return { id: u!.id, client };
}

async function addSite(client: TestClient, siteUrl = wp.url): Promise<number> {
  const res = await client.postJson('/api/wordpress/sites', { siteUrl, username: wp.username, appPassword: wp.appPassword });
  expect(res.status).toBe(201);
  return (await res.json()).site.id;
}

async function completedResult(userId: string, title: string): Promise<string> {
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${userId}, 'text', 'm', 1) RETURNING id`;
  const [r] = await sql<{ id: string }[]>`
    INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
    VALUES (${userId}, ${run!.id}, 0, 'text', ${title}, ${title}, ${`<p>Body of ${title}</p>`}, 'completed', 'm', 1) RETURNING id`;
  return r!.id;
}

function publishForm(siteId: number, title: string, extra: Record<string, string> = {}) {
  return { siteId: String(siteId), mode: 'now', tz: 'UTC', title, content: `<p>${title} body</p>`, excerpt: '', tags: '', ...extra };
}

async function publicationsOf(resultId: string) {
  return sql<{ id: string; status: string; wp_post_id: string | null; update_post_id: string | null }[]>`
    SELECT id, status, wp_post_id, update_post_id FROM wordpress_publications WHERE result_id = ${resultId} ORDER BY created_at`;
}

async function postsTitled(title: string) {
  const res = await wp.rest<{ id: number; title: { raw: string }; content: { raw: string } }[]>(
    `/wp/v2/posts?search=${encodeURIComponent(title)}&status=publish,future,draft&context=edit&per_page=100`,
  );
  return res.body.filter((p) => p.title.raw === title);
}

const decode = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&');

beforeAll(async () => {
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
  proxy = await startProxy(wp.url);
}, 180_000);

afterAll(async () => {
  await Promise.all([app?.close(), proxy?.close()]);
  await wp?.stop();
});

describe('publishing the same result twice', () => {
  it('warns with a link to the existing post, then updates it or makes a new one as the user chooses', async () => {
    const pro = await user('pro', 'twice');
    const siteId = await addSite(pro.client);
    const resultId = await completedResult(pro.id, 'Twice result');

    // First publish: no warning on the page, one post.
    expect(await (await pro.client.get(`/app/publish/${resultId}`)).text()).not.toContain('data-testid="already-published"');
    expect((await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Twice v1'))).status).toBe(302);
    const [first] = await publicationsOf(resultId);
    expect(await runPublication(first!.id)).toBe('published');
    const firstPub = await getPublication(pro.id, first!.id);

    // The page now says where it is, links the post, and asks.
    const page = decode(await (await pro.client.get(`/app/publish/${resultId}`)).text());
    expect(page).toContain('data-testid="already-published"');
    expect(page).toContain('This result is already on');
    expect(page).toContain(`href="${firstPub.link}"`);
    expect(page).toContain('value="update"');
    expect(page).toContain('value="new"');

    // Submitting without a choice (a page opened before the first publish) is refused, nothing queued.
    const refused = await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Twice v2'));
    expect(refused.status).toBe(409);
    expect(decode(await refused.text())).toContain('This result is already published to this site. Choose whether');
    const zh = await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Twice v2'), { 'accept-language': 'zh-HK' });
    expect(zh.status).toBe(409);
    expect(await zh.text()).toContain('此結果已發佈到此網站。請選擇更新現有文章或發佈新文章。');
    expect(await publicationsOf(resultId)).toHaveLength(1);

    // Update: the same post on the site gets the new title and content; no second post.
    expect((await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Twice v2', { onExisting: 'update' }))).status).toBe(
      302,
    );
    const [, update] = await publicationsOf(resultId);
    expect(update!.update_post_id).toBe(first!.wp_post_id ?? String(firstPub.postId));
    expect(await runPublication(update!.id)).toBe('published');
    expect((await getPublication(pro.id, update!.id)).postId).toBe(firstPub.postId);
    const updated = await wp.rest<{ title: { raw: string }; content: { raw: string } }>(`/wp/v2/posts/${firstPub.postId}?context=edit`);
    expect(updated.body.title.raw).toBe('Twice v2');
    expect(updated.body.content.raw).toContain('Twice v2 body');
    expect(await postsTitled('Twice v1')).toHaveLength(0);
    expect(await postsTitled('Twice v2')).toHaveLength(1);

    // New: a second post, as asked.
    expect((await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Twice v3', { onExisting: 'new' }))).status).toBe(
      302,
    );
    const third = (await publicationsOf(resultId))[2]!;
    expect(third.update_post_id).toBeNull();
    expect(await runPublication(third.id)).toBe('published');
    expect((await getPublication(pro.id, third.id)).postId).not.toBe(firstPub.postId);
  });

  it('the JSON API answers 409 with the existing post, and two publishes at once make one publication', async () => {
    const pro = await user('pro', 'twice-api');
    const siteId = await addSite(pro.client);
    const resultId = await completedResult(pro.id, 'Api twice');
    const body = { resultId, siteId, title: 'Api twice', content: '<p>x</p>', status: 'publish' };
    const answers = await Promise.all([1, 2, 3].map(() => pro.client.postJson('/api/wordpress/publish', body)));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409, 409]);
    const conflict = await answers.find((r) => r.status === 409)!.json();
    expect(conflict.error).toBe(
      'This result is already published to this site. Choose whether to update the existing post or publish a new one.',
    );
    expect(conflict.existing).toMatchObject({ status: 'queued', postId: null });
    const [pub] = await publicationsOf(resultId);
    expect(await runPublication(pub!.id)).toBe('published');
    const again = await (await pro.client.postJson('/api/wordpress/publish', body)).json();
    expect(again.existing).toMatchObject({ publicationId: pub!.id, status: 'published', postId: expect.any(Number) });
    expect(again.existing.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    // The user chooses: update. While that update waits (no post of its own), another "update" has
    // nothing to update and is refused.
    expect((await pro.client.postJson('/api/wordpress/publish', { ...body, onExisting: 'update' })).status).toBe(202);
    expect((await pro.client.postJson('/api/wordpress/publish', { ...body, onExisting: 'update' })).status).toBe(409);
  });

  it('updating a post deleted on the site fails at once, explained (no 34 hours of retries)', async () => {
    const pro = await user('pro', 'deleted-post');
    const siteId = await addSite(pro.client);
    const resultId = await completedResult(pro.id, 'Deleted post');
    await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Deleted post'));
    const [first] = await publicationsOf(resultId);
    expect(await runPublication(first!.id)).toBe('published');
    const { postId } = await getPublication(pro.id, first!.id);
    expect((await wp.rest(`/wp/v2/posts/${postId}?force=true`, { method: 'DELETE' })).status).toBe(200);
    await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Deleted post again', { onExisting: 'update' }));
    const [, update] = await publicationsOf(resultId);
    expect(await runPublication(update!.id)).toBe('failed');
    expect(await getPublication(pro.id, update!.id)).toMatchObject({ status: 'failed', lastErrorCode: 'rest_post_invalid_id' });
    const html = decode(await (await pro.client.get('/wordpress')).text());
    expect(html).toContain('The post no longer exists on the site (it was deleted), so it cannot be updated.');
  });
});

describe('publishing results again in bulk', () => {
  it('the bulk page lists the results already on the site with their posts, and updates, adds or leaves them out as chosen', async () => {
    const pro = await user('pro', 'bulk-twice');
    const siteId = await addSite(pro.client);
    const [old1, old2, fresh] = [
      await completedResult(pro.id, 'Bulk old one'),
      await completedResult(pro.id, 'Bulk old two'),
      await completedResult(pro.id, 'Bulk fresh'),
    ];
    const bulkForm = (ids: string[], extra: Record<string, string> = {}) => {
      const form = new URLSearchParams({ siteId: String(siteId), mode: 'now', timeZone: 'UTC', ...extra });
      for (const id of ids) form.append('resultIds', id);
      return form;
    };
    const postBulk = (form: URLSearchParams, headers: Record<string, string> = {}) =>
      pro.client.request('/app/publish-bulk', {
        method: 'POST',
        body: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      });

    // The first bulk publish of two results: nothing asked.
    expect((await postBulk(bulkForm([old1, old2]))).status).toBe(302);
    for (const id of [old1, old2]) expect(await runPublication((await publicationsOf(id))[0]!.id)).toBe('published');
    const firstPosts = await Promise.all(
      [old1, old2].map(async (id) => (await getPublication(pro.id, (await publicationsOf(id))[0]!.id)).postId),
    );

    // The page, with the fresh one selected too: the two already there, linked, and the choice.
    const page = decode(await (await pro.client.get(`/app/publish-bulk?ids=${old1},${old2},${fresh}`)).text());
    expect(page).toContain('data-testid="bulk-existing"');
    expect(page).toContain('2 selected results are already on');
    const links = (await sql<{ wp_link: string }[]>`SELECT wp_link FROM wordpress_publications WHERE result_id IN (${old1}, ${old2})`).map(
      (r) => r.wp_link,
    );
    for (const link of links) expect(page).toContain(`href="${link}"`);
    for (const choice of ['update', 'new', 'skip']) expect(page).toContain(`value="${choice}"`);

    // No choice: refused with the message in the reader's language, nothing queued.
    const refused = await postBulk(bulkForm([old1, old2, fresh]));
    expect(refused.status).toBe(409);
    expect(decode(await refused.text())).toContain('Some selected results are already published to this site.');
    const zh = await postBulk(bulkForm([old1, old2, fresh]), { 'accept-language': 'zh-HK' });
    expect(await zh.text()).toContain('部分已選結果已發佈到此網站。');
    expect(await publicationsOf(fresh)).toHaveLength(0);
    // The JSON API says which ones.
    const api = await pro.client.postJson('/api/wordpress/publish-bulk', { siteId, resultIds: [old1, fresh], mode: 'now' });
    expect(api.status).toBe(409);
    expect((await api.json()).existing).toEqual([expect.objectContaining({ resultId: old1, status: 'published', postId: firstPosts[0] })]);

    // Leave them out: only the fresh one is queued.
    expect((await postBulk(bulkForm([old1, fresh], { onExisting: 'skip' }))).status).toBe(302);
    expect(await publicationsOf(old1)).toHaveLength(1);
    expect(await publicationsOf(fresh)).toHaveLength(1);
    expect(await runPublication((await publicationsOf(fresh))[0]!.id)).toBe('published');

    // Update: the same posts on the site get the new words; no new post.
    await sql`UPDATE generation_results SET title = title || ' (edited)' WHERE id IN (${old1}, ${old2})`;
    expect((await postBulk(bulkForm([old1, old2], { onExisting: 'update' }))).status).toBe(302);
    for (const [i, id] of [old1, old2].entries()) {
      const [, update] = await publicationsOf(id);
      expect(update!.update_post_id).toBe(String(firstPosts[i]));
      expect(await runPublication(update!.id)).toBe('published');
      expect((await getPublication(pro.id, update!.id)).postId).toBe(firstPosts[i]);
    }
    expect(await postsTitled('Bulk old one (edited)')).toHaveLength(1);
    expect(await postsTitled('Bulk old one')).toHaveLength(0);

    // New: another post each.
    expect((await postBulk(bulkForm([old2], { onExisting: 'new' }))).status).toBe(302);
    const [, , again] = await publicationsOf(old2);
    expect(again!.update_post_id).toBeNull();
    expect(await runPublication(again!.id)).toBe('published');
    expect((await getPublication(pro.id, again!.id)).postId).not.toBe(firstPosts[1]);
  });
});

describe('Test connection, then Save, without JavaScript', () => {
  it('the tested password is kept (sealed, never echoed) so Save works with the field empty', async () => {
    const pro = await user('pro', 'nojs-test');
    const tested = await pro.client.postForm('/wordpress?add=1', {
      intent: 'test',
      siteUrl: wp.url,
      username: wp.username,
      appPassword: wp.appPassword,
    });
    expect(tested.status).toBe(200);
    const html = decode(await tested.text());
    expect(html).toContain('Connection successful!');
    expect(html).not.toContain(wp.appPassword);
    const sealed = /name="testedPassword" value="([^"]+)"/.exec(html)?.[1];
    expect(sealed).toBeTruthy();
    expect(html).toContain('The application password you tested is kept for saving.');

    // What the browser sends next: the password field empty (it is never rendered with a value).
    const saved = await pro.client.postForm('/wordpress?add=1', {
      intent: 'create',
      siteUrl: wp.url,
      username: wp.username,
      appPassword: '',
      testedPassword: sealed!,
    });
    expect(saved.status).toBe(302);
    const [site] = await sql<{ id: string }[]>`SELECT id FROM wordpress_sites WHERE user_id = ${pro.id}`;
    expect(site).toBeTruthy();
    // The stored password works: a publication goes through.
    const resultId = await completedResult(pro.id, 'Saved after test');
    await pro.client.postForm(`/app/publish/${resultId}`, publishForm(Number(site!.id), 'Saved after test'));
    const [pub] = await publicationsOf(resultId);
    expect(await runPublication(pub!.id)).toBe('published');

    // Another user's sealed value opens nothing: the field is required again.
    const other = await user('pro', 'nojs-other');
    const stolen = await other.client.postForm('/wordpress?add=1', {
      intent: 'create',
      siteUrl: wp.url,
      username: wp.username,
      appPassword: '',
      testedPassword: sealed!,
    });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('Application password is required');
    expect(await sql`SELECT 1 FROM wordpress_sites WHERE user_id = ${other.id}`).toHaveLength(0);
  });
});

describe('scheduled times name their zone, and the site’s when it differs', () => {
  it("reads the site's zone and shows both clocks, in English and Chinese", async () => {
    const set = await wp.rest<{ timezone: string }>('/wp/v2/settings', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timezone: 'Asia/Hong_Kong' }),
    });
    expect(set.body.timezone).toBe('Asia/Hong_Kong');
    try {
      const pro = await user('pro', 'zones');
      pro.client.cookies.set('tz', 'Europe/London');
      const siteId = await addSite(pro.client);
      expect((await (await pro.client.get('/api/wordpress/sites')).json()).sites[0].timeZone).toBe('Asia/Hong_Kong');
      const resultId = await completedResult(pro.id, 'Zoned');
      // The schedule form names the reader's zone and the site's, with the site's time now.
      const form = decode(await (await pro.client.get(`/app/publish/${resultId}?mode=schedule`)).text());
      expect(form).toContain('Times are in your time zone (Europe/London).');
      expect(form).toMatch(/keeps its own time zone, Asia\/Hong_Kong: it is [^<]*(GMT\+8|HKT)[^<]* there now/);

      // 2031-01-15 09:30 in London (GMT) is 17:30 in Hong Kong.
      expect(
        (
          await pro.client.postForm(`/app/publish/${resultId}`, {
            ...publishForm(siteId, 'Zoned'),
            mode: 'schedule',
            tz: 'Europe/London',
            date: '2031-01-15',
            time: '09:30',
          })
        ).status,
      ).toBe(302);
      const list = decode(await (await pro.client.get('/wordpress')).text());
      expect(list).toMatch(/Jan 15, 2031, 9:30\s?AM (GMT|UTC)/);
      expect(list).toMatch(/Jan 15, 2031, 5:30\s?PM (GMT\+8|HKT) on the site/);
      const zh = decode(await (await pro.client.get('/wordpress', { 'accept-language': 'zh-HK' })).text());
      expect(zh).toContain('網站時間');
      // The browser's zone became the account's: another browser's zone does not change it, the
      // settings do (here without JavaScript). A reader in the site's zone sees one clock only.
      pro.client.cookies.set('tz', 'Asia/Hong_Kong');
      expect(decode(await (await pro.client.get('/wordpress')).text())).toMatch(/Jan 15, 2031, 9:30\s?AM (GMT|UTC)/);
      expect((await pro.client.postForm('/settings', { timeZone: 'Asia/Hong_Kong', redirectTo: '/wordpress' })).status).toBe(302);
      pro.client.cookies.delete('tz');
      const same = decode(await (await pro.client.get('/wordpress')).text());
      expect(same).toMatch(/Jan 15, 2031, 5:30\s?PM (GMT\+8|HKT)/);
      expect(same).not.toContain('on the site');

      // A Hong Kong blogger without JavaScript picks 10:00: the form names the zone and carries it,
      // and 10:00 in Hong Kong is 02:00 UTC. A form without the zone field reads it in the user's zone too.
      const page = decode(await (await pro.client.get(`/app/publish/${resultId}?mode=schedule`)).text());
      expect(page).toContain('<input type="hidden" name="tz" value="Asia/Hong_Kong"/>');
      expect(page).toContain('Times are in your time zone (Asia/Hong_Kong).');
      expect(page).toContain('Change your time zone');
      const zhPage = await (await pro.client.get(`/app/publish/${resultId}?mode=schedule`, { 'accept-language': 'zh-HK' })).text();
      expect(zhPage).toContain('時間以你的時區（Asia/Hong_Kong）顯示。');
      const before = (await publicationsOf(resultId)).length;
      for (const [title, tz] of [
        ['Ten in HK', { tz: 'Asia/Hong_Kong' }],
        ['Ten, no zone field', {}],
      ] as const) {
        const form: Record<string, string> = { ...publishForm(siteId, title), mode: 'schedule', date: '2031-02-01', time: '10:00' };
        delete form.tz;
        expect((await pro.client.postForm(`/app/publish/${resultId}`, { ...form, ...tz, onExisting: 'new' })).status).toBe(302);
      }
      const times = await sql<{ publish_at: Date }[]>`
        SELECT publish_at FROM wordpress_publications WHERE result_id = ${resultId} ORDER BY created_at OFFSET ${before}`;
      expect(times.map((r) => r.publish_at.toISOString())).toEqual(['2031-02-01T02:00:00.000Z', '2031-02-01T02:00:00.000Z']);
      const later = decode(await (await pro.client.get('/wordpress')).text());
      expect(later).toMatch(/Feb 1, 2031, 10:00\s?AM (GMT\+8|HKT)/);

      // The API: an offset names the instant; a time without one is in `timeZone`, else the user's.
      const api = (body: Record<string, unknown>) =>
        pro.client.postJson('/api/wordpress/publish', {
          resultId,
          siteId,
          title: 'By API',
          content: '<p>By API</p>',
          status: 'future',
          onExisting: 'new',
          ...body,
        });
      const local = await api({ publishDate: '2031-03-01T10:00' });
      expect(local.status).toBe(200);
      const localBody = await local.json();
      expect(localBody.publishAt).toBe('2031-03-01T02:00:00.000Z');
      const london = await api({ publishDate: '2031-03-01T10:00', timeZone: 'Europe/London' });
      expect((await london.json()).publishAt).toBe('2031-03-01T10:00:00.000Z');
      const offset = await api({ publishDate: '2031-03-01T10:00:00-05:00', timeZone: 'Europe/London' });
      expect((await offset.json()).publishAt).toBe('2031-03-01T15:00:00.000Z');
      const wrong = await api({ publishDate: '2031-03-01T10:00', timeZone: 'Nowhere/Land' });
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('Unknown time zone');
      // Moving a waiting post, and a bulk schedule, read a time without an offset the same way.
      const moved = await pro.client.request(`/api/wordpress/scheduled/${localBody.publicationId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ publishAt: '2031-04-01T09:15' }),
      });
      expect((await moved.json()).publication.publishAt).toBe('2031-04-01T01:15:00.000Z');
      const bulk = await pro.client.postJson('/api/wordpress/publish-bulk', {
        siteId,
        resultIds: [resultId],
        mode: 'schedule',
        startDate: '2031-05-01',
        startTime: '10:00',
        timeZone: 'Nowhere/Land',
      });
      expect(bulk.status).toBe(400);
      expect(await bulk.text()).toContain('Unknown time zone');
    } finally {
      await wp.rest('/wp/v2/settings', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ timezone: 'UTC' }),
      });
    }
  });
});

describe('after an outage, and when WordPress says why', () => {
  it('a publication waiting on its backoff gets "retry now": a new job at once, the waiting one canceled', async () => {
    const pro = await user('pro', 'retry-now');
    const [closed] = await freePorts(1);
    const siteId = await addSite(pro.client, `http://127.0.0.1:${closed}`);
    const resultId = await completedResult(pro.id, 'Outage');
    await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Outage'));
    const [pub] = await publicationsOf(resultId);
    await expect(runPublication(pub!.id)).rejects.toThrow();
    const waiting = await getPublication(pro.id, pub!.id);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1, lastErrorCode: 'refused' });
    const [{ job_id: oldJob }] = (await sql`SELECT job_id FROM wordpress_publications WHERE id = ${pub!.id}`) as unknown as [
      { job_id: string },
    ];
    // The queue's backoff would wait 30 s, then longer: as pg-boss does, move the job to retry later.
    await sql`UPDATE pgboss.job SET state = 'retry', start_after = now() + interval '1 hour' WHERE id = ${oldJob}`;

    let html = decode(await (await pro.client.get('/wordpress')).text());
    expect(html).toContain('value="retry-scheduled"');
    expect(html).toContain('The site refused the connection.');
    // The site is back (here: the right address).
    await sql`UPDATE wordpress_sites SET site_url = ${wp.url} WHERE id = ${siteId}`;
    const retried = await pro.client.postForm('/wordpress', { intent: 'retry-scheduled', publicationId: pub!.id });
    expect(retried.status).toBe(302);
    const jobs = await sql<{ id: string; state: string; due: boolean }[]>`
      SELECT id, state, start_after <= now() AS due FROM pgboss.job WHERE name = 'wordpress-publish' AND data->>'publicationId' = ${pub!.id}`;
    expect(jobs.find((j) => j.id === oldJob)?.state).toBe('cancelled');
    const fresh = jobs.filter((j) => j.id !== oldJob);
    expect(fresh).toEqual([expect.objectContaining({ state: 'created', due: true })]);
    expect(await runPublication(pub!.id, { jobId: fresh[0]!.id })).toBe('published');
    // Nothing waits any more: retry now again is refused with a message, not an error page.
    const late = await pro.client.postForm('/wordpress', { intent: 'retry-scheduled', publicationId: pub!.id });
    expect(late.status).toBe(302);
    html = decode(await (await pro.client.get('/wordpress')).text());
    expect(html).not.toContain('value="retry-scheduled"');
    // Another user's publication is not found.
    const other = await user('pro', 'retry-other');
    await other.client.postForm('/wordpress', { intent: 'retry-scheduled', publicationId: pub!.id });
    expect((await getPublication(pro.id, pub!.id)).status).toBe('published');
  });

  it('"You are not currently logged in." is explained in the reader\'s language, the raw text kept as detail', async () => {
    const pro = await user('pro', 'raw-error');
    const siteId = await addSite(pro.client, proxy.url);
    const resultId = await completedResult(pro.id, 'Stripped header');
    await pro.client.postForm(`/app/publish/${resultId}`, publishForm(siteId, 'Stripped header'));
    const [pub] = await publicationsOf(resultId);
    proxy.stripAuthorization = true;
    try {
      expect(await runPublication(pub!.id, { final: true })).toBe('failed');
    } finally {
      proxy.stripAuthorization = false;
    }
    expect(await getPublication(pro.id, pub!.id)).toMatchObject({
      lastErrorCode: 'rest_not_logged_in',
      lastError: 'You are not currently logged in.',
    });
    const en = decode(await (await pro.client.get('/wordpress')).text());
    expect(en).toContain("WordPress did not accept the site's username and application password");
    expect(en).toContain('(WordPress said: “You are not currently logged in.”)');
    const zh = decode(await (await pro.client.get('/wordpress', { 'accept-language': 'zh-HK' })).text());
    expect(zh).toContain('WordPress 不接受此網站的用戶名稱及應用程式密碼');
    expect(zh).toContain('（WordPress 回應：「You are not currently logged in.」）');
    // The results list says the same.
    const results = decode(await (await pro.client.get('/app?tab=results')).text());
    expect(results).toContain("WordPress did not accept the site's username and application password");
  });

  it('cancelling Pro warns that scheduled posts after the period end will not be published', async () => {
    const pro = await user('pro', 'cancel-warning');
    const siteId = await addSite(pro.client);
    const soon = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const late = new Date(Date.now() + 60 * 86_400_000).toISOString();
    for (const [title, publishDate] of [
      ['Before the end', soon],
      ['After the end', late],
      ['Also after', late],
    ]) {
      const res = await pro.client.postJson('/api/wordpress/publish', {
        siteId,
        title,
        content: '<p>x</p>',
        status: 'future',
        publishDate,
      });
      expect(res.status).toBe(200);
    }
    const html = decode(await (await pro.client.get('/subscription')).text());
    expect(html).toMatch(
      /data-testid="scheduled-loss-warning"[^>]*>2 scheduled WordPress posts are set for after [^<]+\. They will not be published/,
    );
    const zh = decode(await (await pro.client.get('/subscription', { 'accept-language': 'zh-HK' })).text());
    expect(zh).toMatch(/有 2 篇 WordPress 排程文章定於 [^<]+ 之後發佈/);
    const free = await user('free', 'cancel-warning-free');
    expect(await (await free.client.get('/subscription')).text()).not.toContain('scheduled-loss-warning');
  });
});

// The status a post was asked for, reported truly; updates that are not new posts; a status for
// bulk and drip runs; and scheduled posts placed in WordPress's own schedule, with our job as the
// watchdog. Read back through REST (context=edit); each job's work is called by hand, so every
// step is seen.
describe('statuses, updates and schedules as WordPress has them', () => {
  let userId: string;
  let siteId: number;

  type WpPost = { id: number; status: string; date_gmt: string; link: string };

  async function wpPost(id: number): Promise<WpPost> {
    return (await wp.rest<WpPost>(`/wp/v2/posts/${id}?context=edit`)).body;
  }
  const gmt = (d: Date) => d.toISOString().slice(0, 19);

  async function newUser(label: string, status = 'pro') {
    const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${`${label}-${Date.now()}@example.com`}, ${label}, ${status}) RETURNING id`;
    const site = await createSite(u!.id, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true });
    return { id: u!.id, siteId: site.id };
  }

  async function textResults(owner: string, label: string, count: number): Promise<string[]> {
    const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${owner}, 'text', 'm', ${count}) RETURNING id`;
    const ids: string[] = [];
    for (let i = 1; i <= count; i++) {
      const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
      VALUES (${owner}, ${run!.id}, ${i}, 'text', ${`topic ${i}`}, ${`${label} ${i}`}, ${`<p>Body of ${label} ${i}</p>`}, 'completed', 'm', 1)
      RETURNING id`;
      ids.push(r!.id);
    }
    return ids;
  }

  /** The publish payload as the API reads it. */
  const payload = (body: Record<string, unknown>) => publishSchema((k: string) => k).parse({ siteId, content: '<p>Body</p>', ...body });

  function request(title: string, extra: Partial<PublishRequest> = {}): PublishRequest {
    return {
      siteId,
      resultId: null,
      title,
      content: `<p>Body of ${title}</p>`,
      excerpt: '',
      categories: [],
      tags: [],
      publishAt: null,
      ...extra,
    };
  }

  /** Our clock reached the post's time (the job at its time runs now). */
  async function due(id: string) {
    await sql`UPDATE wordpress_publications SET publish_at = now() - interval '1 second' WHERE id = ${id}`;
  }

  beforeAll(async () => {
    ({ id: userId, siteId } = await newUser('statuses'));
  });

  describe('statuses reported truly', () => {
    it('a draft is reported as a draft with its wp-admin link, and listed as Draft (its webhook event says draft)', async () => {
      await createEndpoint(userId, { url: 'http://127.0.0.1:9/hooks', events: ['publication.published'] });
      const pub = await queuePublish(userId, payload({ title: 'Draft asked for', status: 'draft' }));
      expect(await runPublication(pub!.id)).toBe('published');
      const done = await getPublication(userId, pub!.id);
      expect(done).toMatchObject({ status: 'published', postStatus: 'draft' });
      // The event marks our record's end; the post's own status on the site says it is not live.
      const [event] = await sql<{ data: Record<string, unknown> }[]>`
        SELECT payload->'data' AS data FROM webhook_events WHERE user_id = ${userId} AND payload->'data'->>'publicationId' = ${pub!.id}`;
      expect(event?.data).toMatchObject({ status: 'published', postStatus: 'draft', link: done.link });
      expect(shownStatus(done)).toBe('draft');
      expect(done.link).toBe(`${wp.url}/wp-admin/post.php?post=${done.postId}&action=edit`);
      expect((await wpPost(done.postId!)).status).toBe('draft');
      const { recent } = await listScheduled(userId);
      expect(shownStatus(recent.find((r) => r.id === pub!.id)!)).toBe('draft');
      const month = await calendar(userId, { month: null, siteId, readerZone: 'UTC' });
      expect(
        Object.values(month.days)
          .flat()
          .find((e) => e.id === pub!.id),
      ).toMatchObject({ postStatus: 'draft', update: false });
    });

    it('a future status with a date already past is refused, never published at once', async () => {
      const past = new Date(Date.now() - 3_600_000).toISOString();
      await expect(queuePublish(userId, payload({ title: 'Past date', status: 'future', publishDate: past }))).rejects.toMatchObject({
        code: 'past_publish_date',
        key: 'publish.pastDate',
      });
      const [n] = await sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM wordpress_publications WHERE user_id = ${userId} AND title = 'Past date'`;
      expect(n!.n).toBe(0);
    });
  });

  describe('an update in place is not another post', () => {
    it('is listed as Updated, left off the calendar and its count, and takes no drip day slot', async () => {
      const owner = await newUser('updates');
      const [resultId] = await textResults(owner.id, 'Updatable', 1);
      const body = { siteId: owner.siteId, resultId, title: 'Updatable', content: '<p>v1</p>', status: 'publish' };
      const first = await queuePublish(owner.id, payload(body));
      await runPublication(first!.id);
      const again = await queuePublish(owner.id, payload({ ...body, content: '<p>v2</p>', onExisting: 'update' }));
      expect(await runPublication(again!.id)).toBe('published');
      const updated = await getPublication(owner.id, again!.id);
      expect(updated.postId).toBe((await getPublication(owner.id, first!.id)).postId);
      expect(shownStatus(updated)).toBe('updated');
      const month = await calendar(owner.id, { month: null, siteId: owner.siteId, readerZone: 'UTC' });
      const entries = Object.values(month.days).flat();
      expect(entries.map((e) => e.id)).toEqual([first!.id]);

      // A drip day holding only that update still has its one slot free.
      await saveDripSchedule(
        owner.id,
        owner.siteId,
        { perDay: 1, windowStart: 0, windowEnd: 1439, weekdays: [0, 1, 2, 3, 4, 5, 6], spread: 'even' },
        'UTC',
      );
      const [plan] = await sql<{ id: string }[]>`
      INSERT INTO wordpress_drip_plans (user_id, site_id, seed, start_date, rules, time_zone)
      VALUES (${owner.id}, ${owner.siteId}, 1, '2030-01-01', '{}'::jsonb, 'UTC') RETURNING id`;
      const day = new Date(Date.now() + 3 * 86_400_000);
      const date = instantToZoned(day, 'UTC').date;
      await sql`UPDATE wordpress_publications SET publish_at = ${new Date(`${date}T08:00:00Z`)} WHERE id = ${again!.id}`;
      const [waiting] = await queuePublications(owner.id, [
        {
          ...request('Drip post'),
          siteId: owner.siteId,
          publishAt: new Date(`${date}T02:00:00Z`),
          dripPlanId: plan!.id,
          wpStatus: 'draft',
        },
      ]);
      const moved = await moveScheduled(owner.id, waiting!.id, date, '12:00', 'UTC');
      expect(moved.publishAt).toBe(`${date}T12:00:00.000Z`);
    });
  });

  describe('a post status for bulk and drip runs', () => {
    it('the forms and API take postStatus (publish by default), and bulk posts get it on the site', async () => {
      const t = (k: string) => k;
      const base = { siteId: '1', resultIds: 'a,b' };
      expect(bulkPublishSchema(t).parse(base).postStatus).toBe('publish');
      expect(bulkPublishSchema(t).parse({ ...base, postStatus: 'pending' }).postStatus).toBe('pending');
      expect(bulkPublishSchema(t).safeParse({ ...base, postStatus: 'future' }).success).toBe(false);
      const drip = { ...base, dripStartDate: '2030-01-01', perDay: '2', windowStart: '09:00', windowEnd: '17:00', weekdays: '1,2' };
      expect(dripSchema(t).parse({ ...drip, postStatus: 'draft' }).postStatus).toBe('draft');

      const owner = await newUser('bulk-status');
      const ids = await textResults(owner.id, 'Bulk pending', 2);
      const pubs = await queueBulkPublications(owner.id, {
        siteId: owner.siteId,
        resultIds: ids,
        schedule: null,
        categories: [],
        tags: [],
        featured: false,
        postStatus: 'pending',
      });
      for (const p of pubs) {
        expect(await runPublication(p.id)).toBe('published');
        const done = await getPublication(owner.id, p.id);
        expect(shownStatus(done)).toBe('pending');
        expect((await wpPost(done.postId!)).status).toBe('pending');
      }
    });
  });

  describe('schedules visible in WordPress', () => {
    it('a scheduled post is made at once as future at its date; moved and canceled there with ours', async () => {
      const at = new Date(Date.now() + 3_600_000);
      const [pub] = await queuePublications(userId, [request('Placed ahead', { publishAt: at })]);
      const [mirrorJob] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'wordpress-publish' AND data->>'mirror' = ${pub!.id}`;
      expect(mirrorJob!.n).toBe(1);
      expect(await mirrorSchedule(pub!.id)).toBe('placed');
      const placed = await getPublication(userId, pub!.id);
      expect(placed).toMatchObject({ status: 'queued', scheduledOnSite: true });
      expect(await wpPost(placed.postId!)).toMatchObject({ status: 'future', date_gmt: gmt(at) });
      // Running it again changes nothing.
      expect(await mirrorSchedule(pub!.id)).toBe('skipped');

      const later = new Date(Date.now() + 7_200_000);
      await reschedulePublication(userId, pub!.id, later);
      expect(await mirrorSchedule(pub!.id)).toBe('moved');
      expect(await wpPost(placed.postId!)).toMatchObject({ status: 'future', date_gmt: gmt(later) });

      await cancelPublication(userId, pub!.id);
      expect(await mirrorSchedule(pub!.id)).toBe('trashed');
      expect((await wpPost(placed.postId!)).status).toBe('trash');
    });

    it('at its time the watchdog publishes it when WordPress has not, once', async () => {
      const [pub] = await queuePublications(userId, [request('Watchdog', { publishAt: new Date(Date.now() + 3_600_000) })]);
      await mirrorSchedule(pub!.id);
      const postId = (await getPublication(userId, pub!.id)).postId!;
      await due(pub!.id);
      expect(await runPublication(pub!.id)).toBe('published');
      const done = await getPublication(userId, pub!.id);
      expect(done).toMatchObject({ status: 'published', postId, scheduledOnSite: false });
      const post = await wpPost(postId);
      expect(post.status).toBe('publish');
      expect(done.link).toBe(post.link);
      const [copies] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM wordpress_publications WHERE id = ${pub!.id}`;
      expect(copies!.n).toBe(1);
      expect((await wp.rest<WpPost[]>(`/wp/v2/posts?search=Watchdog&status=publish,future,draft&context=edit`)).body).toHaveLength(1);
    });

    it('what the blogger did in wp-admin wins: published early, moved, trashed', async () => {
      const pubs = await queuePublications(userId, [
        request('Early in wp-admin', { publishAt: new Date(Date.now() + 3_600_000) }),
        request('Moved in wp-admin', { publishAt: new Date(Date.now() + 3_600_000) }),
        request('Trashed in wp-admin', { publishAt: new Date(Date.now() + 3_600_000) }),
      ]);
      for (const p of pubs) expect(await mirrorSchedule(p.id)).toBe('placed');
      const [early, moved, trashed] = await Promise.all(pubs.map((p) => getPublication(userId, p.id)));
      const post = (method: string, id: number, body?: object) =>
        wp.rest(`/wp/v2/posts/${id}`, { method, headers: { 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
      await post('POST', early!.postId!, { status: 'publish', date_gmt: gmt(new Date()) });
      const movedTo = new Date(Math.floor((Date.now() + 5 * 3_600_000) / 1000) * 1000);
      await post('POST', moved!.postId!, { date_gmt: gmt(movedTo) });
      await post('DELETE', trashed!.postId!);
      for (const p of pubs) await due(p.id);

      expect(await runPublication(early!.id)).toBe('published');
      expect(await getPublication(userId, early!.id)).toMatchObject({ status: 'published', postId: early!.postId });

      expect(await runPublication(moved!.id)).toBe('skipped');
      const follows = await getPublication(userId, moved!.id);
      expect(follows).toMatchObject({ status: 'queued', publishAt: movedTo.toISOString(), scheduledOnSite: true });
      expect((await wpPost(moved!.postId!)).status).toBe('future');

      expect(await runPublication(trashed!.id)).toBe('skipped');
      expect((await getPublication(userId, trashed!.id)).status).toBe('canceled');
    });

    it('pausing a drip schedule takes its posts off the site schedule (drafts); resuming puts them back', async () => {
      const owner = await newUser('drip-pause');
      await saveDripSchedule(
        owner.id,
        owner.siteId,
        { perDay: 3, windowStart: 0, windowEnd: 1439, weekdays: [0, 1, 2, 3, 4, 5, 6], spread: 'even' },
        'UTC',
      );
      const [plan] = await sql<{ id: string }[]>`
      INSERT INTO wordpress_drip_plans (user_id, site_id, seed, start_date, rules, time_zone)
      VALUES (${owner.id}, ${owner.siteId}, 1, '2030-01-01', '{}'::jsonb, 'UTC') RETURNING id`;
      const at = new Date(Date.now() + 2 * 3_600_000);
      const [pub] = await queuePublications(owner.id, [
        request('Dripped and paused', { siteId: owner.siteId, publishAt: at, dripPlanId: plan!.id }),
      ]);
      expect(await mirrorSchedule(pub!.id)).toBe('placed');
      const postId = (await getPublication(owner.id, pub!.id)).postId!;
      await pauseDrip(owner.id, owner.siteId);
      expect(await mirrorSchedule(pub!.id)).toBe('unscheduled');
      expect((await wpPost(postId)).status).toBe('draft');
      expect(await getPublication(owner.id, pub!.id)).toMatchObject({ status: 'queued', scheduledOnSite: false });
      await resumeDrip(owner.id, owner.siteId);
      expect(await mirrorSchedule(pub!.id)).toBe('moved');
      expect(await wpPost(postId)).toMatchObject({ status: 'future', date_gmt: gmt(at) });
      expect(await getPublication(owner.id, pub!.id)).toMatchObject({ status: 'queued', scheduledOnSite: true });
    });

    it('when Pro ends, posts already on the site schedule still go out; the others fail, and only they are warned about', async () => {
      const owner = await newUser('pro-ends');
      const at = new Date(Date.now() + 3_600_000);
      const [placed, notPlaced] = await queuePublications(owner.id, [
        request('Placed before Pro ended', { siteId: owner.siteId, publishAt: at }),
        request('Not placed before Pro ended', { siteId: owner.siteId, publishAt: at }),
      ]);
      expect(await mirrorSchedule(placed!.id)).toBe('placed');
      await sql`UPDATE users SET subscription_status = 'free' WHERE id = ${owner.id}`;
      expect(await countScheduledAfter(owner.id, new Date())).toBe(1);
      await due(placed!.id);
      await due(notPlaced!.id);
      expect(await runPublication(placed!.id)).toBe('published');
      expect((await wpPost((await getPublication(owner.id, placed!.id)).postId!)).status).toBe('publish');
      expect(await runPublication(notPlaced!.id)).toBe('failed');
      expect(await getPublication(owner.id, notPlaced!.id)).toMatchObject({ status: 'failed', lastErrorCode: 'not_pro', postId: null });
    });
  });
});
