import { type WpProblem } from '~/utils/wordpress-errors';
import { AppError } from '~/utils/app-error';
import { OutboundError, outboundRequest, type OutboundOptions, type OutboundResponse } from '../outbound.server';

// The WordPress REST API as Postforge uses it, over the outbound guard, with Basic auth and an
// Application Password. Routes go through `?rest_route=`, which works with and without pretty
// permalinks.

export type SiteCredentials = { siteUrl: string; username: string; appPassword: string };

/** Why a call failed, in terms a user can act on (see `diagnosis.*` in the wordpress locale). */
export type { WpProblem };

/**
 * A call to a site that failed. User-facing as the `site_failed` refusal (the edge answers 502) with
 * our diagnosis `diagnosis.<problem>`; `message` is the site's own (English) text, kept as detail.
 */
export class WpError extends AppError<'wordpress', 'site_failed'> {
  constructor(
    readonly problem: WpProblem,
    message: string,
    readonly status?: number,
    readonly wpCode?: string,
  ) {
    super('wordpress', 'site_failed', `diagnosis.${problem}`, message);
    this.name = 'WpError';
  }
}

export type WpCallOptions = Pick<OutboundOptions, 'timeoutMs' | 'allowPrivate' | 'lookup'>;

export function normalizeSiteUrl(raw: string): string {
  const url = new URL(raw.trim());
  url.hash = '';
  url.search = '';
  url.pathname = url.pathname.replace(/\/(wp-admin|wp-json|wp-login\.php).*$/, '').replace(/\/+$/, '');
  return url.toString().replace(/\/+$/, '');
}

function restUrl(siteUrl: string, route: string, query: Record<string, string | number | undefined> = {}): string {
  const url = new URL(`${siteUrl.replace(/\/+$/, '')}/`);
  url.searchParams.set('rest_route', route);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

function authHeader(site: SiteCredentials): string {
  return `Basic ${Buffer.from(`${site.username}:${site.appPassword}`).toString('base64')}`;
}

function fromOutbound(error: unknown): never {
  if (error instanceof OutboundError) throw new WpError(error.code, error.message);
  throw error;
}

type WpErrorBody = { code?: string; message?: string; data?: { status?: number; term_id?: number } };

function errorOf(res: OutboundResponse): WpError {
  const body = res.json<WpErrorBody>();
  const code = body?.code;
  const message = body?.message ? stripTags(body.message) : `HTTP ${res.status}`;
  if (code === 'incorrect_password') return new WpError('wrong_password', message, res.status, code);
  if (code === 'invalid_username' || code === 'invalid_email') return new WpError('wrong_username', message, res.status, code);
  if (code === 'application_passwords_disabled') return new WpError('app_passwords_unavailable', message, res.status, code);
  // WordPress answers a wrong application password and a stripped Authorization header alike.
  if (code === 'rest_not_logged_in') return new WpError('auth_rejected', message, res.status, code);
  if (res.status === 401 || res.status === 403) return new WpError('forbidden', message, res.status, code);
  if (!body) return new WpError(res.status === 404 ? 'rest_disabled' : 'site_error', message, res.status, code);
  return new WpError('site_error', message, res.status, code);
}

function stripTags(s: string): string {
  return s.replace(/<[^>]*>/g, '').trim();
}

async function call(
  site: SiteCredentials,
  method: string,
  route: string,
  init: { query?: Record<string, string | number | undefined>; json?: unknown; body?: Buffer; headers?: Record<string, string> } = {},
  opts: WpCallOptions = {},
): Promise<OutboundResponse> {
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: authHeader(site), ...init.headers };
  let body: Buffer | undefined = init.body;
  if (init.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = Buffer.from(JSON.stringify(init.json));
  }
  try {
    return await outboundRequest(restUrl(site.siteUrl, route, init.query), { method, headers, body, ...opts });
  } catch (error) {
    return fromOutbound(error);
  }
}

async function callOk<T>(...args: Parameters<typeof call>): Promise<{ data: T; res: OutboundResponse }> {
  const res = await call(...args);
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
  const data = res.json<T>();
  if (data === undefined) throw new WpError('not_wordpress', 'The site did not answer with JSON', res.status);
  return { data, res };
}

// ---------------------------------------------------------------------------------------------
// Connection test with a diagnosis

export type ConnectionCheck =
  | {
      ok: true;
      userName: string;
      timeZone: string | null;
      /** The companion plugin (public/wordpress/postforge-seo.php) is active: SEO meta can be written. */
      seoPlugin: boolean;
    }
  | { ok: false; problem: WpProblem; detail: string };

/** The REST namespace the companion plugin adds (its status route); present only while it is active. */
export const SEO_PLUGIN_NAMESPACE = 'postforge/v1';

type RestIndex = {
  namespaces?: string[];
  authentication?: Record<string, unknown>;
  code?: string;
  message?: string;
  timezone_string?: string;
  gmt_offset?: number | string;
};

/**
 * The site's time zone as its REST index states it: the zone name when the site chose a city, else
 * its fixed offset when whole hours (`Etc/GMT-8` is UTC+8: the sign is inverted), else null.
 */
export function timeZoneOfIndex(index: Pick<RestIndex, 'timezone_string' | 'gmt_offset'>): string | null {
  const named = index.timezone_string?.trim();
  if (named) {
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: named }).resolvedOptions().timeZone;
    } catch {
      // an unknown name: fall back to the offset
    }
  }
  const offset = Number(index.gmt_offset);
  if (!Number.isFinite(offset) || !Number.isInteger(offset) || Math.abs(offset) > 14) return null;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** The site's time zone from its REST index (no credentials needed); null when it does not say. */
export async function siteTimeZone(siteUrl: string, opts: WpCallOptions = {}): Promise<string | null> {
  try {
    const index = await outboundRequest(restUrl(siteUrl, '/'), {
      headers: { Accept: 'application/json' },
      ...opts,
      timeoutMs: opts.timeoutMs ?? 10_000,
    });
    const body = index.json<RestIndex>();
    return body && typeof body === 'object' ? timeZoneOfIndex(body) : null;
  } catch (error) {
    if (error instanceof OutboundError) return null;
    throw error;
  }
}

/** Probes the REST index without credentials, then `users/me` with them, and says what is wrong. */
export async function checkConnection(site: SiteCredentials, opts: WpCallOptions = {}): Promise<ConnectionCheck> {
  let index: OutboundResponse;
  try {
    index = await outboundRequest(restUrl(site.siteUrl, '/'), {
      headers: { Accept: 'application/json' },
      ...opts,
      timeoutMs: opts.timeoutMs ?? 10_000,
    });
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, problem: error.code, detail: error.message };
    throw error;
  }
  const body = index.json<RestIndex>();
  if (!body || typeof body !== 'object') {
    const html = index.text();
    // A WordPress page whose REST API answers with HTML: disabled or blocked by a plugin or the host.
    if (/wp-content|wp-includes|<meta[^>]+generator[^>]+WordPress/i.test(html)) {
      return { ok: false, problem: 'rest_disabled', detail: `HTTP ${index.status}` };
    }
    return { ok: false, problem: 'not_wordpress', detail: `HTTP ${index.status}` };
  }
  if (!Array.isArray(body.namespaces)) {
    if (
      body.code === 'rest_disabled' ||
      body.code === 'rest_login_required' ||
      body.code === 'rest_cannot_access' ||
      index.status === 401 ||
      index.status === 403
    ) {
      return { ok: false, problem: 'rest_disabled', detail: body.message ? stripTags(body.message) : `HTTP ${index.status}` };
    }
    return { ok: false, problem: 'not_wordpress', detail: `HTTP ${index.status}` };
  }
  if (!body.namespaces.includes('wp/v2')) return { ok: false, problem: 'rest_disabled', detail: 'wp/v2 is not available' };
  if (body.authentication && !('application-passwords' in body.authentication)) {
    return { ok: false, problem: 'app_passwords_unavailable', detail: 'Application Passwords are not offered' };
  }
  try {
    const { data } = await callOk<{ id: number; name: string; capabilities?: Record<string, boolean> }>(
      site,
      'GET',
      '/wp/v2/users/me',
      { query: { context: 'edit' } },
      opts,
    );
    if (data.capabilities && data.capabilities.publish_posts === false) {
      return { ok: false, problem: 'forbidden', detail: 'This user cannot publish posts' };
    }
    return { ok: true, userName: data.name, timeZone: timeZoneOfIndex(body), seoPlugin: body.namespaces.includes(SEO_PLUGIN_NAMESPACE) };
  } catch (error) {
    if (error instanceof WpError) return { ok: false, problem: error.problem, detail: error.message };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Categories, tags, media, posts

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

export async function findMediaByMarker(site: SiteCredentials, marker: string, opts: WpCallOptions = {}): Promise<WpMedia | null> {
  const { data } = await callOk<{ id: number; source_url: string; title?: { raw?: string; rendered?: string }; slug?: string }[]>(
    site,
    'GET',
    '/wp/v2/media',
    { query: { search: marker, per_page: 10, context: 'edit', _fields: 'id,source_url,title,slug' } },
    opts,
  );
  const hit = data.find((m) => (m.title?.raw ?? m.title?.rendered ?? '').includes(marker) || (m.slug ?? '').includes(marker));
  return hit ? { id: hit.id, url: hit.source_url } : null;
}

export async function uploadMedia(
  site: SiteCredentials,
  file: { data: Buffer; filename: string; mimeType: string; altText?: string },
  opts: WpCallOptions = {},
): Promise<WpMedia> {
  const safeName = file.filename.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'image';
  const { data } = await callOk<{ id: number; source_url: string }>(
    site,
    'POST',
    '/wp/v2/media',
    {
      // With a raw body, WordPress reads the other fields from the query string.
      query: { alt_text: file.altText || undefined },
      body: file.data,
      headers: { 'Content-Type': file.mimeType, 'Content-Disposition': `attachment; filename="${safeName}"` },
    },
    { timeoutMs: 60_000, ...opts },
  );
  return { id: data.id, url: data.source_url };
}

/** A media item of the site, or null when it is gone (deleted on the site). */
export async function getMedia(site: SiteCredentials, id: number, opts: WpCallOptions = {}): Promise<WpMedia | null> {
  const res = await call(site, 'GET', `/wp/v2/media/${id}`, { query: { context: 'edit', _fields: 'id,source_url' } }, opts);
  if (res.status === 404) return null;
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
  const data = res.json<{ id: number; source_url: string }>();
  if (!data?.source_url) throw new WpError('not_wordpress', 'The site did not answer with JSON', res.status);
  return { id: data.id, url: data.source_url };
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

export type WpPublishedPost = { id: number; title: string; url: string; categories: string[]; tags: string[]; excerpt: string };

type WpTerm = { taxonomy?: string; name?: string };
type WpListedPost = {
  id: number;
  link: string;
  title?: { rendered?: string };
  excerpt?: { rendered?: string };
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
          _fields: 'id,link,title,excerpt,_links,_embedded',
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
      });
    }
    const pages = Number(res.headers['x-wp-totalpages'] ?? 1);
    if (data.length === 0 || page >= pages) break;
  }
  return all.slice(0, limit);
}
