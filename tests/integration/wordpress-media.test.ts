import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { env } from '../../app/runtime/env.server';
import { getPublication, queuePublications, queuePublish, type PublishRequest } from '../../app/services/wordpress/publications.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import { queueBulkPublications } from '../../app/services/wordpress/bulk.server';
import { updateResultContent } from '../../app/services/results.server';
import { publishAndWait } from '../../app/services/wordpress/publish-now.server';
import { createSite } from '../../app/services/wordpress/sites.server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { startProxy, type Proxy } from '../support/http-peers';
import { startS3Server } from '../support/s3-server';
import { resetEnv } from '../../app/runtime/env.server';
import { putObject } from '../../app/runtime/object-storage.server';

// Our images against the real WordPress: our images (`/images/{id}`, relative or under APP_URL)
// go to the site's media library once per (site, image), the post points at them, the first is the
// featured image; image results go out as a post or to the media library only. Jobs are run by
// hand (runPublication), as a worker would, to place a failure between the upload and the post.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

// A 1×1 PNG and a 1×1 GIF.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

let wp: WordPressSite;
let proxy: Proxy;
let userId: string;
let otherUserId: string;
let siteId: number;
let proxiedSiteId: number;

type WpPost = { id: number; status: string; title: { raw: string }; content: { raw: string }; featured_media: number };
type WpMediaItem = {
  id: number;
  source_url: string;
  alt_text: string;
  mime_type: string;
  post: number | null;
  title: { raw: string };
  description: { raw: string };
};

const marker = (imageId: string) => `postforgeimg${imageId.replace(/-/g, '')}`;

/** Media items on the site carrying this image's marker (the REST API's own count). */
async function mediaOf(imageId: string): Promise<WpMediaItem[]> {
  const res = await wp.rest<WpMediaItem[]>(`/wp/v2/media?search=${marker(imageId)}&per_page=100&context=edit`);
  expect(res.status).toBe(200);
  return res.body;
}

async function postsTitled(title: string): Promise<WpPost[]> {
  const res = await wp.rest<WpPost[]>(`/wp/v2/posts?search=${encodeURIComponent(title)}&status=publish,draft&context=edit&per_page=100`);
  return res.body.filter((p) => p.title.raw === title);
}

async function newUser(label: string): Promise<string> {
  const [u] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES (${`wp-media-${label}-${Date.now()}@example.com`}, ${label}, 'pro') RETURNING id`;
  return u!.id;
}

/** A completed result of the user with stored images (the generation worker's shape). */
async function resultWithImages(
  owner: string,
  type: 'text' | 'image',
  prompt: string,
  images: { bytes: Buffer; contentType: string }[],
  content?: (ids: string[]) => string,
): Promise<{ resultId: string; imageIds: string[] }> {
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total) VALUES (${owner}, ${type}, 'm', 1) RETURNING id`;
  const [result] = await sql<{ id: string }[]>`
    INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
    VALUES (${owner}, ${run!.id}, 0, ${type}, ${prompt}, ${prompt}, '', 'completed', 'm', 1) RETURNING id`;
  const imageIds: string[] = [];
  for (const [idx, image] of images.entries()) {
    const [row] = await sql<{ id: string }[]>`
      INSERT INTO generation_images (user_id, result_id, idx, content_type, bytes)
      VALUES (${owner}, ${result!.id}, ${idx}, ${image.contentType}, ${image.bytes}) RETURNING id`;
    imageIds.push(row!.id);
  }
  const body = content ? content(imageIds) : `/images/${imageIds[0]}`;
  await sql`
    UPDATE generation_results SET content = ${body}, metadata = ${sql.json({ images: imageIds })} WHERE id = ${result!.id}`;
  return { resultId: result!.id, imageIds };
}

function request(title: string, content: string, extra: Partial<PublishRequest> = {}): PublishRequest {
  return { siteId, resultId: null, title, content, excerpt: '', categories: [], tags: [], publishAt: null, ...extra };
}

/** Every img src in the HTML, in order. */
const sources = (html: string) => [...html.matchAll(/<img\b[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);

async function answers200(url: string, bytes: Buffer) {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  expect(Buffer.from(await res.arrayBuffer()).equals(bytes), url).toBe(true);
}

beforeAll(async () => {
  wp = await startWordPress();
  proxy = await startProxy(wp.url);
  userId = await newUser('owner');
  otherUserId = await newUser('other');
  siteId = (await createSite(userId, { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword, isDefault: true })).id;
  proxiedSiteId = (await createSite(userId, { siteUrl: proxy.url, username: wp.username, appPassword: wp.appPassword, isDefault: false }))
    .id;
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await wp?.stop();
});

describe('our images on the WordPress site', () => {
  it('uploads each image once, rewrites relative and APP_URL sources, keeps alt text, makes the first the featured image', async () => {
    const { resultId, imageIds } = await resultWithImages(
      userId,
      'text',
      'Two images',
      [
        { bytes: PNG, contentType: 'image/png' },
        { bytes: GIF, contentType: 'image/gif' },
      ],
      ([a, b]) =>
        `<figure><img src="/images/${a}" alt="A red &quot;dot&quot; &amp; more"></figure><p>Between</p>` +
        `<p><img src="${env.APP_URL}/images/${b}" alt="Second"></p><p><img src="/images/${a}" alt="Again"></p>`,
    );
    const [a, b] = imageIds as [string, string];
    const content = (await sql<{ content: string }[]>`SELECT content FROM generation_results WHERE id = ${resultId}`)[0]!.content;
    const [pub] = await queuePublications(userId, [request('Post with images', content, { resultId })]);
    expect(await runPublication(pub!.id)).toBe('published');

    const done = await getPublication(userId, pub!.id);
    const post = (await wp.rest<WpPost>(`/wp/v2/posts/${done.postId}?context=edit`)).body;
    const [mediaA] = await mediaOf(a);
    const [mediaB] = await mediaOf(b);
    expect(await mediaOf(a)).toHaveLength(1);
    expect(await mediaOf(b)).toHaveLength(1);
    // Three images in the post (the first used twice), each pointing at the site's own file.
    expect(sources(post.content.raw)).toEqual([mediaA!.source_url, mediaB!.source_url, mediaA!.source_url]);
    expect(post.content.raw).not.toContain('/images/');
    expect(post.content.raw).toContain('alt="A red &quot;dot&quot; &amp; more"');
    expect(post.content.raw).toContain('alt="Second"');
    expect(mediaA!.alt_text).toBe('A red "dot" & more');
    expect(post.featured_media).toBe(mediaA!.id);
    for (const [url, bytes] of [
      [mediaA!.source_url, PNG],
      [mediaB!.source_url, GIF],
    ] as const) {
      await answers200(url, bytes);
    }
    const recorded = await sql<{ image_id: string; wp_media_id: string }[]>`
      SELECT image_id, wp_media_id FROM wordpress_media WHERE site_id = ${siteId} ORDER BY wp_media_id`;
    expect(recorded.map((r) => [r.image_id, Number(r.wp_media_id)])).toEqual(
      expect.arrayContaining([
        [a, mediaA!.id],
        [b, mediaB!.id],
      ]),
    );

    // Running the job again (pg-boss may) changes nothing.
    expect(await runPublication(pub!.id)).toBe('skipped');
    // Another post with the same image reuses the upload.
    const [again] = await queuePublications(userId, [request('Same image again', `<p><img src="/images/${a}" alt="x"></p>`)]);
    expect(await runPublication(again!.id)).toBe('published');
    expect(await mediaOf(a)).toHaveLength(1);
    const second = (await wp.rest<WpPost>(`/wp/v2/posts/${(await getPublication(userId, again!.id)).postId}?context=edit`)).body;
    expect(sources(second.content.raw)).toEqual([mediaA!.source_url]);
    expect(second.featured_media).toBe(mediaA!.id);
  });

  it('an edited title: the post, its file names, alt text and H1 follow it; the media is attached to the post', async () => {
    const stamp = Date.now().toString(36);
    const { resultId, imageIds } = await resultWithImages(
      userId,
      'text',
      `Generated title ${stamp}`,
      [{ bytes: PNG, contentType: 'image/png' }],
      ([a]) => `<figure><img src="/images/${a}" alt="Generated title ${stamp}"></figure><p>Body text.</p>`,
    );
    const [img] = imageIds as [string];
    // The blogger renames the post in the editor (a typed H1 at the top too: the typed title wins).
    const content = (await sql<{ content: string }[]>`SELECT content FROM generation_results WHERE id = ${resultId}`)[0]!.content;
    const edited = await updateResultContent(userId, resultId, `<h1>Generated title ${stamp}</h1>${content}`, {
      title: `Café Guide ${stamp}: Édition`,
    });
    expect(edited.title).toBe(`Café Guide ${stamp}: Édition`);
    expect(edited.content).not.toContain('<h1');
    expect(edited.content).toContain(`alt="Café Guide ${stamp}: Édition"`);
    // Bulk publishing (as drip does) sends the edited title.
    const [pub] = await queueBulkPublications(userId, {
      siteId,
      resultIds: [resultId],
      schedule: null,
      categories: [],
      tags: [],
      featured: true,
      onExisting: 'new',
    });
    expect(await runPublication(pub!.id)).toBe('published');
    const postId = (await getPublication(userId, pub!.id)).postId!;
    const post = (await wp.rest<WpPost>(`/wp/v2/posts/${postId}?context=edit`)).body;
    expect(post.title.raw).toBe(`Café Guide ${stamp}: Édition`);
    expect(post.content.raw).not.toMatch(/<h1|wp:heading \{[^}]*"level":1/);
    const [media] = await mediaOf(img);
    // Named from the title as a clean slug, no marker in the file name; the marker is in the description.
    expect(media!.source_url).toMatch(new RegExp(`/cafe-guide-${stamp}-edition\\.png$`));
    expect(media!.source_url).not.toMatch(/[0-9a-f]{32}/);
    expect(media!.description.raw).toContain(marker(img));
    expect(media!.title.raw).toBe(`Café Guide ${stamp}: Édition`);
    expect(media!.alt_text).toBe(`Café Guide ${stamp}: Édition`);
    expect(post.content.raw).toContain(`alt="Café Guide ${stamp}: Édition"`);
    // Attached to its post (its parent), and the featured image.
    expect(media!.post).toBe(postId);
    expect(post.featured_media).toBe(media!.id);
    const parent = await wp.php(`echo wp_get_post_parent_id(${media!.id});`);
    expect(Number(parent)).toBe(postId);
  });

  it('a crash after the upload and before the post: the retry uploads nothing twice and makes one post', async () => {
    const { imageIds } = await resultWithImages(userId, 'text', 'Crash', [{ bytes: PNG, contentType: 'image/png' }]);
    const [img] = imageIds as [string];
    const title = `Crash between upload and post ${Date.now()}`;
    const [pub] = await queuePublications(userId, [
      request(title, `<p>Intro</p><img src="/images/${img}" alt="Crash alt">`, { siteId: proxiedSiteId }),
    ]);
    // The site fails the post creation once (after our upload went through).
    proxy.fail((req) => req.method === 'POST' && (req.url ?? '').includes(encodeURIComponent('/wp/v2/posts')), 503);
    await expect(runPublication(pub!.id)).rejects.toThrow();
    expect((await getPublication(userId, pub!.id)).status).toBe('queued');
    expect(await mediaOf(img)).toHaveLength(1);
    expect(await postsTitled(title)).toHaveLength(0);

    // The retry (and a duplicate run after it) make exactly one post with the one upload.
    expect(await runPublication(pub!.id)).toBe('published');
    expect(await runPublication(pub!.id)).toBe('skipped');
    const [media] = await mediaOf(img);
    expect(await mediaOf(img)).toHaveLength(1);
    const posts = await postsTitled(title);
    expect(posts).toHaveLength(1);
    expect(sources(posts[0]!.content.raw)).toEqual([media!.source_url]);
    expect(posts[0]!.featured_media).toBe(media!.id);
    await answers200(media!.source_url, PNG);

    // A crash that lost our record of the upload: the site's file is found by its marker, not uploaded again.
    await sql`DELETE FROM wordpress_media WHERE image_id = ${img}`;
    const [lost] = await queuePublications(userId, [request(`${title} (record lost)`, `<img src="/images/${img}" alt="y">`)]);
    expect(await runPublication(lost!.id)).toBe('published');
    expect(await mediaOf(img)).toHaveLength(1);
    const [row] = await sql<{ wp_media_id: string }[]>`SELECT wp_media_id FROM wordpress_media WHERE image_id = ${img}`;
    expect(Number(row!.wp_media_id)).toBe(media!.id);
  });

  it('an upload deleted on the site is uploaded again; images of another user are left alone', async () => {
    const { imageIds } = await resultWithImages(userId, 'text', 'Deleted', [{ bytes: GIF, contentType: 'image/gif' }]);
    const [img] = imageIds as [string];
    const [first] = await queuePublications(userId, [request('Deleted media 1', `<img src="/images/${img}" alt="d">`)]);
    expect(await runPublication(first!.id)).toBe('published');
    const [gone] = await mediaOf(img);
    expect((await wp.rest(`/wp/v2/media/${gone!.id}?force=true`, { method: 'DELETE' })).status).toBe(200);
    const [second] = await queuePublications(userId, [request('Deleted media 2', `<img src="/images/${img}" alt="d">`)]);
    expect(await runPublication(second!.id)).toBe('published');
    const now = await mediaOf(img);
    expect(now).toHaveLength(1);
    expect(now[0]!.id).not.toBe(gone!.id);
    await answers200(now[0]!.source_url, GIF);

    const theirs = await resultWithImages(otherUserId, 'text', 'Theirs', [{ bytes: PNG, contentType: 'image/png' }]);
    const [foreign] = await queuePublications(userId, [
      request('Foreign image', `<p><img src="/images/${theirs.imageIds[0]}" alt="f"></p>`),
    ]);
    expect(await runPublication(foreign!.id)).toBe('published');
    expect(await mediaOf(theirs.imageIds[0]!)).toHaveLength(0);
    const post = (await wp.rest<WpPost>(`/wp/v2/posts/${(await getPublication(userId, foreign!.id)).postId}?context=edit`)).body;
    expect(post.featured_media).toBe(0);
  });

  it('an image result: to the media library only (no post), or as a post with its image', async () => {
    const prompt = `A lighthouse at dusk ${Date.now()}`;
    const { resultId, imageIds } = await resultWithImages(userId, 'image', prompt, [
      { bytes: PNG, contentType: 'image/png' },
      { bytes: GIF, contentType: 'image/gif' },
    ]);
    const payload = {
      resultId,
      siteId,
      title: prompt,
      content: 'ignored for the media library',
      excerpt: '',
      categories: [],
      categoryIds: [],
      tags: [],
      status: 'publish' as const,
      publishDate: null,
      featured: false,
      onExisting: undefined,
    };
    const media = await publishAndWait(userId, { ...payload, target: 'media' }, 0);
    expect(media?.publication.kind).toBe('media');
    expect(await runPublication(media!.publication.id)).toBe('published');
    const done = await getPublication(userId, media!.publication.id);
    const [first] = await mediaOf(imageIds[0]!);
    const [secondImage] = await mediaOf(imageIds[1]!);
    expect(done).toMatchObject({ status: 'published', postId: null, link: first!.source_url });
    expect(first!.alt_text).toBe(prompt);
    expect(secondImage!.alt_text).toBe(prompt);
    await answers200(first!.source_url, PNG);
    await answers200(secondImage!.source_url, GIF);
    expect(await postsTitled(prompt)).toHaveLength(0);

    // The same result as a post: its images are already there (nothing uploaded twice).
    const asPost = await queuePublish(userId, {
      ...payload,
      content: `<figure><img src="/images/${imageIds[0]}" alt="${prompt}"></figure>`,
      target: 'post',
    });
    expect(await runPublication(asPost!.id)).toBe('published');
    expect(await mediaOf(imageIds[0]!)).toHaveLength(1);
    const [post] = await postsTitled(prompt);
    expect(sources(post!.content.raw)).toEqual([first!.source_url]);
    expect(post!.featured_media).toBe(first!.id);

    // A text result cannot go to the media library alone.
    const text = await resultWithImages(userId, 'text', 'Text only', [{ bytes: PNG, contentType: 'image/png' }]);
    await expect(publishAndWait(userId, { ...payload, resultId: text.resultId, target: 'media' }, 0)).rejects.toMatchObject({
      code: 'not_image',
    });
    // An unknown result is named as the result, not the site.
    await expect(
      publishAndWait(userId, { ...payload, resultId: '00000000-0000-4000-8000-000000000000', target: 'media' }, 0),
    ).rejects.toMatchObject({ code: 'result_not_found' });
  });
  it('an image kept in object storage is uploaded to the site from there', async () => {
    const s3 = await startS3Server();
    Object.assign(process.env, s3.env);
    resetEnv();
    try {
      const { imageIds } = await resultWithImages(userId, 'text', 'Stored image', [{ bytes: GIF, contentType: 'image/gif' }]);
      const [img] = imageIds as [string];
      // In the bucket, as `npm run images -- to-s3` leaves it: the row keeps the key and no bytes.
      await putObject(`images/${img}`, GIF, 'image/gif');
      await sql`UPDATE generation_images SET storage_key = ${`images/${img}`}, bytes = NULL WHERE id = ${img}`;
      const [pub] = await queuePublications(userId, [request('Image from storage', `<p><img src="/images/${img}" alt="s"></p>`)]);
      expect(await runPublication(pub!.id)).toBe('published');
      const [media] = await mediaOf(img);
      await answers200(media!.source_url, GIF);
    } finally {
      for (const name of Object.keys(s3.env)) delete process.env[name];
      resetEnv();
      await s3.close();
    }
  });
});
