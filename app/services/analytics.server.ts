import { z } from 'zod';
import { sql, type Db } from '../../db/client';
import type { Language } from '~/i18n';

// Page views: path, referrer, language and signed-in state. Never the IP address, never a
// query string (it may carry tokens such as the reset-password link's).
// Every field is capped; rows are kept for PAGE_VIEW_RETENTION_DAYS (purged by the hourly
// maintenance job) and each client may report LIMITS.pageviewIp views a minute.
const MAX_LENGTH = 512;
export const MAX_PAGE_VIEW_BODY = 2048;
export const PAGE_VIEW_RETENTION_DAYS = 90;

export const pageViewSchema = z.object({
  path: z.string().min(1).max(1024),
  referrer: z.string().max(1024).nullish(),
});

/** The path without query or hash, or null if it is not a same-site absolute path of ≤ 512 chars. */
export function cleanPath(raw: string): string | null {
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\s\\]/.test(raw)) return null;
  const path = raw.split(/[?#]/, 1)[0]!;
  return path.length <= MAX_LENGTH ? path : null;
}

/** Origin and path of an http(s) referrer (no query, no hash), cut to 512 chars; null otherwise. */
export function cleanReferrer(raw: string | null | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return (url.origin + url.pathname).slice(0, MAX_LENGTH);
  } catch {
    return null;
  }
}

export async function recordPageView(view: { path: string; referrer: string | null; language: Language; signedIn: boolean }, db: Db = sql) {
  await db`INSERT INTO page_views (path, referrer, language, signed_in)
            VALUES (${view.path}, ${view.referrer}, ${view.language}, ${view.signedIn})`;
}

/** Deletes page views older than the retention window (PAGE_VIEW_RETENTION_DAYS); for the hourly maintenance job. */
export async function purgeOldPageViews(db: Db = sql): Promise<number> {
  const result = await db`DELETE FROM page_views WHERE created_at < now() - make_interval(days => ${PAGE_VIEW_RETENTION_DAYS})`;
  return result.count;
}
