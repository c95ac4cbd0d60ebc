import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { queueBulkPublications } from '../../app/services/wordpress/bulk.server';
import { calendar, moveScheduled, saveDripSchedule } from '../../app/services/wordpress/drip.server';
import { getPublication, queuePublications, queuePublish, type PublishRequest } from '../../app/services/wordpress/publications.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { mirrorSchedule } from '../../app/services/wordpress/schedule-mirror.server';
import {
  cancelPublication,
  countScheduledAfter,
  listScheduled,
  reschedulePublication,
} from '../../app/services/wordpress/schedules.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { shownStatus } from '../../app/utils/publication-state';
import { bulkPublishSchema, publishSchema } from '../../app/utils/wordpress-schemas';
import { dripSchema } from '../../app/utils/drip-schemas';
import { instantToZoned } from '../../app/utils/zoned-time';
import { startWordPress, type WordPressSite } from '../support/wordpress';

// The status a post was asked for, reported truly; updates that are not new posts; a status for
// bulk and drip runs; and scheduled posts placed in WordPress's own schedule, with our job as the
// watchdog. Against the real WordPress, read back through REST (context=edit). No worker runs here:
// each job's work is called directly, so every step is seen.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let wp: WordPressSite;
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
  wp = await startWordPress();
  ({ id: userId, siteId } = await newUser('statuses'));
}, 180_000);

afterAll(async () => {
  await wp?.stop();
});

describe('statuses reported truly', () => {
  it('a draft is reported as a draft with its wp-admin link, and listed as Draft', async () => {
    const pub = await queuePublish(userId, payload({ title: 'Draft asked for', status: 'draft' }));
    expect(await runPublication(pub!.id)).toBe('published');
    const done = await getPublication(userId, pub!.id);
    expect(done).toMatchObject({ status: 'published', postStatus: 'draft' });
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
      { ...request('Drip post'), siteId: owner.siteId, publishAt: new Date(`${date}T02:00:00Z`), dripPlanId: plan!.id, wpStatus: 'draft' },
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
