import { call, callOk, errorOf, stripTags, WpError, type SiteCredentials, type WpCallOptions, type WpErrorBody } from './client.server';

// What Postforge reads and writes on a site through its REST API (client.server.ts): categories,
// tags, media, posts, and the published posts that internal links may point at.

export type WpCategory = { id: number; name: string };

export async function listCategories(site: SiteCredentials, opts: WpCallOptions = {}): Promise<WpCategory[]> {
  const all: WpCategory[] = [];
  for (let page = 1; page <= 10; page++) {
    const { data, res } = await callOk<{ id: number; name: string }[]>(
      site,
      'GET',
      '/wp/v2/categories',
      { query: { per_page: 100, page, _fields: 'id,name', orderby: 'name' } },
      opts,
    );
    all.push(...data.map((c) => ({ id: c.id, name: decodeEntities(c.name) })));
    const pages = Number(res.headers['x-wp-totalpages'] ?? 1);
    if (page >= pages) break;
  }
  return all;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));
}

/** The site's tags (names), alphabetical, at most 1,000. */
export async function listTags(site: SiteCredentials, opts: WpCallOptions = {}): Promise<string[]> {
  const all: string[] = [];
  for (let page = 1; page <= 10; page++) {
    const { data, res } = await callOk<{ id: number; name: string }[]>(
      site,
      'GET',
      '/wp/v2/tags',
      { query: { per_page: 100, page, _fields: 'id,name', orderby: 'name' } },
      opts,
    );
    all.push(...data.map((c) => decodeEntities(c.name)));
    if (page >= Number(res.headers['x-wp-totalpages'] ?? 1)) break;
  }
  return all;
}

/** The ids of these tag names on the site, creating the ones it does not have. */
export async function ensureTags(site: SiteCredentials, names: string[], opts: WpCallOptions = {}): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const { data } = await callOk<{ id: number; name: string }[]>(
      site,
      'GET',
      '/wp/v2/tags',
      { query: { search: name, per_page: 100, _fields: 'id,name' } },
      opts,
    );
    const found = data.find((t) => decodeEntities(t.name).toLowerCase() === name.toLowerCase());
    if (found) {
      ids.push(found.id);
      continue;
    }
    const res = await call(site, 'POST', '/wp/v2/tags', { json: { name } }, opts);
    const body = res.json<{ id?: number } & WpErrorBody>();
    if (res.status >= 200 && res.status < 300 && body?.id) ids.push(body.id);
    else if (body?.code === 'term_exists' && body.data?.term_id) ids.push(body.data.term_id);
    else throw errorOf(res);
  }
  return ids;
}

export type WpMedia = { id: number; url: string };

type WpMediaItem = {
  id: number;
  source_url: string;
  post?: number | null;
  title?: { raw?: string; rendered?: string };
  slug?: string;
  description?: { raw?: string };
};

/**
 * A media item carrying this marker: in its description (an HTML comment readers never see), or in
 * its title or slug (uploads named after the marker before).
 */
export async function findMediaByMarker(site: SiteCredentials, marker: string, opts: WpCallOptions = {}): Promise<WpMedia | null> {
  const { data } = await callOk<WpMediaItem[]>(
    site,
    'GET',
    '/wp/v2/media',
    { query: { search: marker, per_page: 10, context: 'edit', _fields: 'id,source_url,title,slug,description' } },
    opts,
  );
  const hit = data.find(
    (m) =>
      (m.description?.raw ?? '').includes(marker) ||
      (m.title?.raw ?? m.title?.rendered ?? '').includes(marker) ||
      (m.slug ?? '').includes(marker),
  );
  return hit ? { id: hit.id, url: hit.source_url } : null;
}

export async function uploadMedia(
  site: SiteCredentials,
  file: { data: Buffer; filename: string; mimeType: string; altText?: string; title?: string; description?: string },
  opts: WpCallOptions = {},
): Promise<WpMedia> {
  const safeName = file.filename.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'image';
  const { data } = await callOk<{ id: number; source_url: string }>(
    site,
    'POST',
    '/wp/v2/media',
    {
      // With a raw body, WordPress reads the other fields from the query string.
      query: { alt_text: file.altText || undefined, title: file.title || undefined, description: file.description || undefined },
      body: file.data,
      headers: { 'Content-Type': file.mimeType, 'Content-Disposition': `attachment; filename="${safeName}"` },
    },
    { timeoutMs: 60_000, ...opts },
  );
  return { id: data.id, url: data.source_url };
}

/** A media item of the site, or null when it is gone (deleted on the site). */
export async function getMedia(site: SiteCredentials, id: number, opts: WpCallOptions = {}): Promise<(WpMedia & { post: number }) | null> {
  const res = await call(site, 'GET', `/wp/v2/media/${id}`, { query: { context: 'edit', _fields: 'id,source_url,post' } }, opts);
  if (res.status === 404) return null;
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
  const data = res.json<WpMediaItem>();
  if (!data?.source_url) throw new WpError('not_wordpress', 'The site did not answer with JSON', res.status);
  return { id: data.id, url: data.source_url, post: Number(data.post ?? 0) };
}

/** Makes a media item belong to a post (its parent, as an upload from the post's editor would). */
export async function setMediaParent(site: SiteCredentials, id: number, postId: number, opts: WpCallOptions = {}): Promise<void> {
  await callOk(site, 'POST', `/wp/v2/media/${id}`, { json: { post: postId } }, opts);
}

export type WpPost = { id: number; status: string; link: string };

const ANY_STATUS = 'publish,future,draft,pending,private';

export async function findPostByMarker(site: SiteCredentials, marker: string, opts: WpCallOptions = {}): Promise<WpPost | null> {
  const { data } = await callOk<{ id: number; status: string; link: string; content?: { raw?: string } }[]>(
    site,
    'GET',
    '/wp/v2/posts',
    { query: { search: marker, status: ANY_STATUS, context: 'edit', per_page: 10, _fields: 'id,status,link,content' } },
    opts,
  );
  const hit = data.find((p) => (p.content?.raw ?? '').includes(marker));
  return hit ? { id: hit.id, status: hit.status, link: hit.link } : null;
}

export type NewPost = {
  title: string;
  content: string;
  excerpt: string;
  status: 'publish' | 'future' | 'draft' | 'pending';
  date?: string;
  categories: number[];
  tags: number[];
  featuredMedia?: number;
  /** The post's slug (WordPress makes it unique); empty: WordPress derives it from the title. */
  slug?: string;
  /** Post meta; keys nothing registers for REST are ignored by WordPress (read back to know). */
  meta?: Record<string, string>;
};

export async function createPost(site: SiteCredentials, post: NewPost, opts: WpCallOptions = {}): Promise<WpPost> {
  return writePost(site, '/wp/v2/posts', post, opts);
}

/** Replaces an existing post's fields (publishing a result again onto its earlier post). */
export async function updatePost(site: SiteCredentials, id: number, post: NewPost, opts: WpCallOptions = {}): Promise<WpPost> {
  return writePost(site, `/wp/v2/posts/${id}`, post, opts);
}

async function writePost(site: SiteCredentials, route: string, post: NewPost, opts: WpCallOptions): Promise<WpPost> {
  const { data } = await callOk<WpPost>(
    site,
    'POST',
    route,
    {
      json: {
        title: post.title,
        content: post.content,
        excerpt: post.excerpt,
        status: post.status,
        ...(post.date ? { date_gmt: post.date } : {}),
        categories: post.categories,
        tags: post.tags,
        ...(post.featuredMedia ? { featured_media: post.featuredMedia } : {}),
        ...(post.slug ? { slug: post.slug } : {}),
        ...(post.meta && Object.keys(post.meta).length ? { meta: post.meta } : {}),
      },
    },
    { timeoutMs: 30_000, ...opts },
  );
  return { id: data.id, status: data.status, link: data.link };
}

/** Who the credentials sign in as (a clear error when they do not). */
export async function whoAmI(site: SiteCredentials, opts: WpCallOptions = {}): Promise<{ id: number; name: string }> {
  const { data } = await callOk<{ id: number; name: string }>(site, 'GET', '/wp/v2/users/me', { query: { _fields: 'id,name' } }, opts);
  return data;
}

/**
 * Whether WordPress keeps scripts in what these credentials post (the unfiltered_html capability:
 * administrators of a single site). For any other account it strips them. False when unsure.
 */
export async function canPostScripts(site: SiteCredentials, opts: WpCallOptions = {}): Promise<boolean> {
  const res = await call(site, 'GET', '/wp/v2/users/me', { query: { context: 'edit', _fields: 'id,capabilities' } }, opts);
  if (res.status < 200 || res.status >= 300) return false;
  const caps = res.json<{ capabilities?: Record<string, unknown> }>()?.capabilities;
  return caps?.unfiltered_html === true;
}

/** A post as read back: its status, link and the post meta the REST API exposes (registered keys only). */
export async function getPost(
  site: SiteCredentials,
  id: number,
  opts: WpCallOptions = {},
): Promise<WpPost & { meta: Record<string, unknown> }> {
  const { data } = await callOk<WpPost & { meta?: unknown }>(
    site,
    'GET',
    `/wp/v2/posts/${id}`,
    { query: { context: 'edit', _fields: 'id,status,link,meta' } },
    opts,
  );
  // WordPress answers an empty meta as [] (a PHP empty array), a filled one as an object.
  const meta = data.meta && typeof data.meta === 'object' && !Array.isArray(data.meta) ? (data.meta as Record<string, unknown>) : {};
  return { id: data.id, status: data.status, link: data.link, meta };
}

/**
 * Of these post ids, the ones published on the site now, with their current link: one request for
 * up to 100 ids (internal links check their targets when a post is published). A post deleted,
 * trashed or unpublished is simply not in the answer.
 */
export async function publishedPostLinks(site: SiteCredentials, ids: number[], opts: WpCallOptions = {}): Promise<Map<number, string>> {
  const unique = [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))].slice(0, 100);
  if (unique.length === 0) return new Map();
  const { data, res } = await callOk<{ id: number; link: string; status: string }[]>(
    site,
    'GET',
    '/wp/v2/posts',
    { query: { include: unique.join(','), status: 'publish', per_page: 100, _fields: 'id,link,status' } },
    opts,
  );
  if (!Array.isArray(data)) throw new WpError('not_wordpress', 'The site did not answer with a list of posts', res.status);
  return new Map(data.filter((p) => p.status === 'publish' && p.link).map((p) => [p.id, p.link]));
}

/** A post's stored content (block markup or Classic HTML, `context=edit`), or null when it is gone. */
export async function getPostRaw(
  site: SiteCredentials,
  id: number,
  opts: WpCallOptions = {},
): Promise<{ id: number; status: string; link: string; raw: string } | null> {
  const res = await call(site, 'GET', `/wp/v2/posts/${id}`, { query: { context: 'edit', _fields: 'id,status,link,content' } }, opts);
  if (res.status === 404 || res.status === 410) return null;
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
  const data = res.json<{ id: number; status: string; link: string; content?: { raw?: string } }>();
  if (!data || typeof data.content?.raw !== 'string')
    throw new WpError('not_wordpress', 'The site did not answer with the post', res.status);
  if (data.status === 'trash') return null;
  return { id: data.id, status: data.status, link: data.link, raw: data.content.raw };
}

/** Replaces only a post's content (a late internal link woven in); every other field stays. */
export async function updatePostContent(site: SiteCredentials, id: number, content: string, opts: WpCallOptions = {}): Promise<WpPost> {
  const { data } = await callOk<WpPost>(site, 'POST', `/wp/v2/posts/${id}`, { json: { content } }, { timeoutMs: 30_000, ...opts });
  return { id: data.id, status: data.status, link: data.link };
}

export type WpPublishedPost = {
  id: number;
  title: string;
  url: string;
  categories: string[];
  tags: string[];
  excerpt: string;
  /** The post's text (the start of it, POST_TEXT_MAX characters), for the near-duplicate index. */
  text: string;
};

/** How much of each post's text is kept for the near-duplicate index: a long post's start is enough to match a copy. */
export const POST_TEXT_MAX = 20_000;

type WpTerm = { taxonomy?: string; name?: string };
type WpListedPost = {
  id: number;
  link: string;
  title?: { rendered?: string };
  excerpt?: { rendered?: string };
  content?: { rendered?: string };
  _embedded?: { 'wp:term'?: WpTerm[][] };
};

/**
 * The site's published posts, newest first, 100 a page, at most `limit`: title, link, excerpt (as
 * plain text) and the names of their categories and tags (embedded, so one request a page).
 */
export async function listPublishedPosts(
  site: SiteCredentials,
  limit: number,
  opts: WpCallOptions & { pageSize?: number } = {},
): Promise<WpPublishedPost[]> {
  const { pageSize = 100, ...callOpts } = opts;
  // One page size for every page (WordPress pages by offset = (page - 1) * per_page).
  const perPage = Math.max(1, Math.min(100, pageSize, limit));
  const all: WpPublishedPost[] = [];
  for (let page = 1; all.length < limit; page++) {
    const { data, res } = await callOk<WpListedPost[]>(
      site,
      'GET',
      '/wp/v2/posts',
      {
        query: {
          status: 'publish',
          per_page: perPage,
          page,
          orderby: 'date',
          order: 'desc',
          _embed: 'wp:term',
          _fields: 'id,link,title,excerpt,content,_links,_embedded',
        },
      },
      { timeoutMs: 30_000, ...callOpts },
    );
    if (!Array.isArray(data)) throw new WpError('not_wordpress', 'The site did not answer with a list of posts', res.status);
    for (const p of data) {
      const terms = (p._embedded?.['wp:term'] ?? []).flat();
      const names = (taxonomy: string) => terms.filter((t) => t.taxonomy === taxonomy && t.name).map((t) => decodeEntities(t.name!));
      all.push({
        id: p.id,
        title: decodeEntities(stripTags(p.title?.rendered ?? '')),
        url: p.link,
        categories: names('category'),
        tags: names('post_tag'),
        excerpt: decodeEntities(stripTags(p.excerpt?.rendered ?? ''))
          .replace(/\s+/g, ' ')
          .slice(0, 1000),
        text: decodeEntities(stripTags((p.content?.rendered ?? '').replace(/<\/(p|h[1-6]|li|div)>/gi, '$&\n'))).slice(0, POST_TEXT_MAX),
      });
    }
    const pages = Number(res.headers['x-wp-totalpages'] ?? 1);
    if (data.length === 0 || page >= pages) break;
  }
  return all.slice(0, limit);
}
