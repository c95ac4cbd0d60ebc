import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { queues } from '../../app/queue/queues';
import { spreadSchedule } from '../../app/services/wordpress/bulk.server';
import { WordPressServiceError } from '../../app/services/wordpress/errors.server';
import { getPublication, queuePublications, type PublishRequest } from '../../app/services/wordpress/publications.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { listScheduled, cancelPublication, reschedulePublication } from '../../app/services/wordpress/schedules.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { createEndpoint } from '../../app/services/webhooks.server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { startPublishWorker } from '../support/publish-worker';
import { startProxy, type Proxy } from '../support/http-peers';

// The test WordPress lives on 127.0.0.1.
vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

let wp: WordPressSite;
let proxy: Proxy;
let userId: string;
let siteId: number;
let proxiedSiteId: number;

type WpPost = {
  id: number;
  status: string;
  title: { raw: string };
  content: { raw: string };
  featured_media: number;
  tags: number[];
  categories: number[];
};

async function postsTitled(title: string): Promise<WpPost[]> {
  const res = await wp.rest<WpPost[]>(
    `/wp/v2/posts?search=${encodeURIComponent(title)}&status=publish,future,draft&context=edit&per_page=100`,
  );
  return res.body.filter((p) => p.title.raw === title);
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 250));
  }
}

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

let working = false;
async function startWorker() {
  if (working) return;
  working = true;
  await startPublishWorker();
}

beforeAll(async () => {
  wp = await startWordPress();
  proxy = await startProxy(wp.url);
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${`wp-pub-${Date.now()}@example.com`}, 'Publisher', 'pro') RETURNING id`;
  userId = u!.id;
  siteId = (await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true })).id;
  proxiedSiteId = (await createSite(userId, { siteUrl: proxy.url, username: wp.username, appPassword: wp.appPassword, isDefault: false }))
    .id;
  // The publication events are written with the final state (their delivery: webhooks.test.ts).
  await createEndpoint(userId, { url: 'http://127.0.0.1:9/hooks', events: ['publication.published', 'publication.failed'] });
}, 180_000);

async function eventsOf(publicationId: string) {
  return sql<{ type: string; data: Record<string, unknown> }[]>`
    SELECT type, payload->'data' AS data FROM webhook_events WHERE user_id = ${userId} AND payload->'data'->>'publicationId' = ${publicationId}`;
}

afterAll(async () => {
  await proxy?.close();
  await wp?.stop();
});

describe('publishing to a real WordPress through the queue', () => {
  it('publishes now with categories, new tags and a featured image, and confirms by reading back', async () => {
    await startWorker();
    const cats = await wp.rest<{ id: number; name: string }[]>('/wp/v2/categories?per_page=100');
    const news = cats.body.find((c) => c.name === 'News')!;
    const tag = `fresh-tag-${Date.now()}`;
    const [pub] = await queuePublications(userId, [
      request('Now post', {
        content:
          '<!DOCTYPE html><html><head><title>x</title><script>alert(1)</script></head><body><h2>Hello</h2><p onclick="x()">World<script>evil()</script></p></body></html>',
        excerpt: 'Short summary',
        categories: [news.id],
        tags: [tag, 'News tag'],
        featuredImage: { data: PNG, mimeType: 'image/png' },
      }),
    ]);
    const done = await waitFor(async () => {
      const p = await getPublication(userId, pub!.id);
      return p.status === 'published' ? p : null;
    });
    expect(done.postId).toBeGreaterThan(0);
    const post = (await wp.rest<WpPost>(`/wp/v2/posts/${done.postId}?context=edit`)).body;
    expect(post.status).toBe('publish');
    expect(post.title.raw).toBe('Now post');
    // Reduced to the body and sanitized.
    expect(post.content.raw).toContain('<h2>Hello</h2>');
    expect(post.content.raw).not.toMatch(/<script|onclick|<html|<head/i);
    expect(post.categories).toEqual([news.id]);
    expect(post.tags).toHaveLength(2);
    const tags = (await wp.rest<{ id: number; name: string }[]>(`/wp/v2/tags?include=${post.tags.join(',')}`)).body
      .map((t) => t.name)
      .sort();
    expect(tags).toEqual(['News tag', tag].sort());
    expect(post.featured_media).toBeGreaterThan(0);
    const media = (await wp.rest<{ mime_type: string; source_url: string }>(`/wp/v2/media/${post.featured_media}`)).body;
    expect(media.mime_type).toBe('image/png');
    const image = await fetch(media.source_url);
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    expect(done.link).toContain('/now-post/');
    expect(await eventsOf(pub!.id)).toEqual([
      {
        type: 'publication.published',
        data: { publicationId: pub!.id, resultId: null, status: 'published', postId: done.postId, link: done.link, postStatus: 'publish' },
      },
    ]);
  });

  it('title and excerpt reach WordPress as plain text, even for an admin with unfiltered_html', async () => {
    await startWorker();
    // The premise: WordPress keeps this user's markup as given, so only our side can strip it.
    const me = (await wp.rest<{ capabilities: Record<string, boolean> }>('/wp/v2/users/me?context=edit')).body;
    expect(me.capabilities.unfiltered_html).toBe(true);
    const [pub] = await queuePublications(userId, [
      request('Plain <b>title</b> &amp; more<script>alert(1)</script><img src=x onerror=alert(2)>', {
        excerpt: '<a href="/api/logout">Read</a> & <em>learn</em><script>alert(3)</script>',
      }),
    ]);
    expect(pub!.title).toBe('Plain title & more');
    const done = await waitFor(async () => {
      const p = await getPublication(userId, pub!.id);
      return p.status === 'published' ? p : null;
    });
    const post = (
      await wp.rest<WpPost & { excerpt: { raw: string }; title: { raw: string; rendered: string } }>(
        `/wp/v2/posts/${done.postId}?context=edit`,
      )
    ).body;
    expect(post.title.raw).toBe('Plain title &amp; more');
    expect(post.excerpt.raw).toBe('Read &amp; learn');
    expect(`${post.title.rendered} ${post.excerpt.raw}`).not.toMatch(/<|onerror|alert/);
  });

  it('a scheduled post waits in our queue and goes live at its time (not before), once', async () => {
    await startWorker();
    const at = new Date(Date.now() + 4000);
    const [pub] = await queuePublications(userId, [request('Scheduled soon', { publishAt: at })]);
    const { waiting } = await listScheduled(userId);
    expect(waiting.map((w) => w.id)).toContain(pub!.id);
    expect(await postsTitled('Scheduled soon')).toHaveLength(0);
    const done = await waitFor(async () => {
      const p = await getPublication(userId, pub!.id);
      return p.status === 'published' ? p : null;
    });
    expect(new Date(done.publishedAt!).getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(await postsTitled('Scheduled soon')).toHaveLength(1);
  });

  it('a waiting publication can be moved and canceled', async () => {
    const [a, b] = await queuePublications(userId, [
      request('To be canceled', { publishAt: new Date(Date.now() + 3_600_000) }),
      request('To be moved', { publishAt: new Date(Date.now() + 3_600_000) }),
    ]);
    await cancelPublication(userId, a!.id);
    await reschedulePublication(userId, b!.id, new Date(Date.now() + 1000));
    await startWorker();
    await waitFor(async () => (await getPublication(userId, b!.id)).status === 'published');
    expect((await getPublication(userId, a!.id)).status).toBe('canceled');
    expect(await postsTitled('To be canceled')).toHaveLength(0);
    await expect(cancelPublication(userId, b!.id)).rejects.toBeInstanceOf(WordPressServiceError);
  });

  it('a bulk schedule of 20 spreads the posts and publishes each exactly once', async () => {
    await startWorker();
    const times = spreadSchedule(new Date(Date.now() + 1500), 20, 1, 'hours').map((d, i) => new Date(Date.now() + 1500 + i * 100));
    expect(spreadSchedule(new Date(0), 3, 2, 'days').map((d) => d.getTime())).toEqual([0, 2 * 86_400_000, 4 * 86_400_000]);
    const pubs = await queuePublications(
      userId,
      times.map((t, i) => request(`Bulk item ${i + 1}`, { publishAt: t })),
    );
    expect(pubs).toHaveLength(20);
    const [jobs] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'wordpress-publish' AND data->>'publicationId' = ANY(${pubs.map((p) => p.id)}) AND start_after > now()`;
    expect(jobs!.n).toBeGreaterThan(0);
    await waitFor(async () => {
      const rows = await sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM wordpress_publications WHERE id = ANY(${pubs.map((p) => p.id)}) AND status = 'published'`;
      return rows[0]!.n === 20;
    }, 90_000);
    for (let i = 1; i <= 20; i++) expect(await postsTitled(`Bulk item ${i}`)).toHaveLength(1);
  }, 120_000);

  it('the site is down at the scheduled time: retried, and published once when it is back', async () => {
    await startWorker();
    await wp.stopSite();
    try {
      const [pub] = await queuePublications(userId, [request('Down then up', { publishAt: new Date(Date.now() + 500) })]);
      const failedOnce = await waitFor(async () => {
        const p = await getPublication(userId, pub!.id);
        return p.attempts >= 1 ? p : null;
      });
      expect(failedOnce.status).toBe('queued');
      expect(failedOnce.lastError).toMatch(/refused/i);
      const [job] = await sql<{ state: string; start_after: Date }[]>`
        SELECT state, start_after FROM pgboss.job WHERE name = 'wordpress-publish' AND data->>'publicationId' = ${pub!.id}`;
      expect(job!.state).toBe('retry');
      // Backoff: the next try is not immediate.
      expect(job!.start_after.getTime()).toBeGreaterThan(Date.now() + 10_000);
      await wp.startSite();
      // Fast-forward the backoff instead of waiting for it.
      await sql`UPDATE pgboss.job SET start_after = now() WHERE name = 'wordpress-publish' AND data->>'publicationId' = ${pub!.id} AND state = 'retry'`;
      await waitFor(async () => (await getPublication(userId, pub!.id)).status === 'published');
      expect(await postsTitled('Down then up')).toHaveLength(1);
    } finally {
      await wp.startSite().catch(() => undefined);
    }
  }, 90_000);

  it('a publish that timed out after the site created the post is retried without a second post', async () => {
    const [pub] = await queuePublications(userId, [
      request('Timed out once', { siteId: proxiedSiteId, publishAt: new Date(Date.now() + 3_600_000) }),
    ]);
    await sql`UPDATE wordpress_publications SET publish_at = now() WHERE id = ${pub!.id}`;
    // The site creates the post but its answer arrives after our deadline.
    proxy.delay((req) => req.method === 'POST' && (req.url ?? '').includes('wp%2Fv2%2Fposts'), 3000);
    await expect(runPublication(pub!.id, { timeoutMs: 1000 })).rejects.toThrow(/time/i);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await postsTitled('Timed out once')).toHaveLength(1);
    expect((await getPublication(userId, pub!.id)).postId).toBeNull();
    // The retry finds the post by its marker instead of creating another.
    expect(await runPublication(pub!.id)).toBe('published');
    expect(await postsTitled('Timed out once')).toHaveLength(1);
    expect(proxy.seen.filter((s) => s === 'POST /wp/v2/posts')).toHaveLength(1);
    expect((await getPublication(userId, pub!.id)).postId).toBe((await postsTitled('Timed out once'))[0]!.id);
    // Running it again changes nothing.
    expect(await runPublication(pub!.id)).toBe('skipped');
  });

  it("the last retry ends the item failed with the site's message", async () => {
    const [pub] = await queuePublications(userId, [request('Wrong password', { publishAt: new Date(Date.now() + 3_600_000) })]);
    await sql`UPDATE wordpress_publications SET publish_at = now() WHERE id = ${pub!.id}`;
    const other = await createSite(userId, {
      siteUrl: wp.url,
      username: wp.username,
      appPassword: 'wrong pass word 1234',
      isDefault: false,
    });
    await sql`UPDATE wordpress_publications SET site_id = ${other.id} WHERE id = ${pub!.id}`;
    await expect(runPublication(pub!.id)).rejects.toThrow();
    expect((await getPublication(userId, pub!.id)).status).toBe('queued');
    expect(await runPublication(pub!.id, { final: true })).toBe('failed');
    const failed = await getPublication(userId, pub!.id);
    expect(failed.status).toBe('failed');
    expect(failed.lastError).toMatch(/not currently logged in/i);
    expect(failed.attempts).toBe(2);
    // Only the final failure is an event (the retried one was not).
    const events = await eventsOf(pub!.id);
    expect(events.map((e) => e.type)).toEqual(['publication.failed']);
    expect(events[0]!.data.error).toMatch(/not currently logged in/i);
    // Beside the English text, the stored code to branch on; the body is the one the API document describes.
    expect(events[0]!.data.errorCode).toBe(failed.lastErrorCode);
    const { publicationFailedEvent } = await import('../../app/http/api-document.server');
    publicationFailedEvent.parse({ type: 'publication.failed', timestamp: new Date().toISOString(), data: events[0]!.data });
  });

  it("Free users cannot publish; another user's site is not found", async () => {
    const [free] = await sql<
      { id: string }[]
    >`INSERT INTO users (email, name) VALUES (${`wp-free-${Date.now()}@example.com`}, 'Free') RETURNING id`;
    await expect(queuePublications(free!.id, [request('Nope')])).rejects.toMatchObject({ code: 'not_pro' });
    await sql`UPDATE users SET subscription_status = 'canceled' WHERE id = ${free!.id}`;
    await expect(queuePublications(free!.id, [request('Nope')])).rejects.toMatchObject({ code: 'not_found' });
  });

  it('the retry policy spans at least a day', () => {
    const { retryLimit, retryDelay } = queues['wordpress-publish'].options;
    // pg-boss's backoff waits at least retryDelay × 2^(n-1) before retry n.
    let total = 0;
    for (let n = 1; n <= retryLimit; n++) total += retryDelay * 2 ** (n - 1);
    expect(total).toBeGreaterThanOrEqual(86_400);
  });
});
