import { call, callOk, errorOf, WpError, type SiteCredentials, type WpCallOptions } from './client.server';

// A post's place in WordPress's own schedule, read and written through the REST API: its status and
// date (`future` at date_gmt is what wp-admin and editorial calendars show), moved or taken back.

export type PostSchedule = { id: number; status: string; link: string; date: Date | null };

/** WordPress's GMT dates carry no zone (and a draft may have none); seconds are its precision. */
function gmtDate(raw: unknown): Date | null {
  if (typeof raw !== 'string' || !raw) return null;
  const d = new Date(`${raw.replace(/Z$/, '')}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function wpGmt(at: Date): string {
  return at.toISOString().slice(0, 19);
}

/** The post as the site has it now, or null when it is gone (deleted, or in the trash). */
export async function readPostSchedule(site: SiteCredentials, id: number, opts: WpCallOptions = {}): Promise<PostSchedule | null> {
  const res = await call(site, 'GET', `/wp/v2/posts/${id}`, { query: { context: 'edit', _fields: 'id,status,link,date_gmt' } }, opts);
  if (res.status === 404 || res.status === 410) return null;
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
  const data = res.json<{ id: number; status: string; link: string; date_gmt?: string | null }>();
  if (!data || typeof data.status !== 'string') throw new WpError('not_wordpress', 'The site did not answer with the post', res.status);
  if (data.status === 'trash') return null;
  return { id: data.id, status: data.status, link: data.link, date: gmtDate(data.date_gmt) };
}

/**
 * Sets a post's status and date: `future` at a later date schedules it on the site, `publish`
 * with the date it goes out, `draft` takes it off the schedule. WordPress turns a `publish` dated in
 * the future back into `future`, so publishing now sends now's date when the post's date is later.
 */
export async function writePostSchedule(
  site: SiteCredentials,
  id: number,
  change: { status: 'future' | 'publish' | 'draft'; date?: Date },
  opts: WpCallOptions = {},
): Promise<PostSchedule> {
  const { data } = await callOk<{ id: number; status: string; link: string; date_gmt?: string | null }>(
    site,
    'POST',
    `/wp/v2/posts/${id}`,
    { query: { context: 'edit' }, json: { status: change.status, ...(change.date ? { date_gmt: wpGmt(change.date) } : {}) } },
    { timeoutMs: 30_000, ...opts },
  );
  return { id: data.id, status: data.status, link: data.link, date: gmtDate(data.date_gmt) };
}

/** Moves a post to the site's trash (the blogger can still restore it there). Gone already: done. */
export async function trashPost(site: SiteCredentials, id: number, opts: WpCallOptions = {}): Promise<void> {
  const res = await call(site, 'DELETE', `/wp/v2/posts/${id}`, {}, { timeoutMs: 30_000, ...opts });
  if (res.status === 404 || res.status === 410) return;
  // Already in the trash: WordPress refuses to trash it twice.
  if (res.json<{ code?: string }>()?.code === 'rest_already_trashed') return;
  if (res.status < 200 || res.status >= 300) throw errorOf(res);
}

/** Where the blogger opens a post that readers cannot see yet (a draft, pending review, scheduled). */
export function postEditLink(siteUrl: string, id: number): string {
  return `${siteUrl.replace(/\/+$/, '')}/wp-admin/post.php?post=${id}&action=edit`;
}
