import { sql, transaction, type Db } from '../../../db/client';
import { open, seal } from '../secrets.server';
import { checkUrlAddresses, OutboundError, type OutboundOptions } from '../outbound.server';
import { WordPressServiceError } from './errors.server';
import { cancelPublishJobs } from './publish-queue.server';
import {
  checkConnection,
  normalizeSiteUrl,
  siteTimeZone,
  type ConnectionCheck,
  type SiteCredentials,
  type WpCallOptions,
} from './client.server';
import { listCategories, uploadMedia, type WpCategory } from './client-content.server';

// Users' WordPress sites: connect, check, change, remove. Sites are owned (another user's id is
// "not found"); application passwords are sealed and leave this module only to be sent to the site.

export type Site = {
  id: number;
  siteName: string;
  siteUrl: string;
  username: string;
  isDefault: boolean;
  /** The site's own time zone (its REST index says it), null until known. */
  timeZone: string | null;
  /** Posts go as plain HTML (one Classic block, for older themes) instead of Gutenberg blocks. */
  classicHtml: boolean;
  /** Posts published to this site carry their internal links (no provider call, no credits). */
  internalLinks: boolean;
  createdAt: string;
};

const sealContext = (userId: string) => `wordpress-app-password:${userId}`;

type SiteRow = {
  id: string;
  site_url: string;
  site_name: string;
  username: string;
  is_default: boolean;
  time_zone: string | null;
  classic_html: boolean;
  link_enabled: boolean;
  created_at: Date;
};

function toSite(r: SiteRow): Site {
  return {
    id: Number(r.id),
    siteName: r.site_name,
    siteUrl: r.site_url,
    username: r.username,
    isDefault: r.is_default,
    timeZone: r.time_zone,
    classicHtml: r.classic_html,
    internalLinks: r.link_enabled,
    createdAt: r.created_at.toISOString(),
  };
}

export function siteNameOf(siteUrl: string): string {
  return new URL(siteUrl).host;
}

export async function listSites(userId: string, db: Db = sql): Promise<Site[]> {
  const rows = await db<SiteRow[]>`
    SELECT id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at FROM wordpress_sites
    WHERE user_id = ${userId} ORDER BY is_default DESC, id`;
  return rows.map(toSite);
}

export async function getSite(userId: string, siteId: number, db: Db = sql): Promise<Site> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('not_found');
  const [row] = await db<SiteRow[]>`
    SELECT id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at FROM wordpress_sites
    WHERE user_id = ${userId} AND id = ${siteId}`;
  if (!row) throw new WordPressServiceError('not_found');
  return toSite(row);
}

/** The site's address and opened application password, for calls to it (never for a response). */
export async function siteCredentials(userId: string, siteId: number, db: Db = sql): Promise<SiteCredentials & { siteName: string }> {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new WordPressServiceError('not_found');
  const [row] = await db<{ site_url: string; site_name: string; username: string; app_password_sealed: string }[]>`
    SELECT site_url, site_name, username, app_password_sealed FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
  if (!row) throw new WordPressServiceError('not_found');
  return {
    siteUrl: row.site_url,
    siteName: row.site_name,
    username: row.username,
    appPassword: open(row.app_password_sealed, sealContext(userId)),
  };
}

// A tested application password, sealed into the site form when the page is rendered again without
// JavaScript (the password field itself is never sent back), so Save after Test connection works.
const testedContext = (userId: string) => `wordpress-tested-password:${userId}`;

export function sealTestedPassword(userId: string, appPassword: string): string {
  return seal(appPassword, testedContext(userId));
}

/** The password sealed by sealTestedPassword for this user, or null (tampered, another user's). */
export function openTestedPassword(userId: string, sealed: string): string | null {
  try {
    return open(sealed, testedContext(userId));
  } catch {
    return null;
  }
}

export type SiteInput = {
  siteUrl: string;
  username: string;
  appPassword?: string;
  isDefault: boolean;
  classicHtml?: boolean;
  /** Absent: on for a new site, unchanged for an edit. */
  internalLinks?: boolean;
};

type GuardOptions = Pick<OutboundOptions, 'allowPrivate' | 'lookup' | 'allowAddress'>;

/** The site's address, normalized, if the outbound guard would let us call it (else blocked_url). */
async function guardedSiteUrl(raw: string, guard: GuardOptions): Promise<string> {
  const siteUrl = normalizeSiteUrl(raw);
  try {
    await checkUrlAddresses(siteUrl, guard);
  } catch (error) {
    if (error instanceof OutboundError) throw new WordPressServiceError('blocked_url', error.message);
    throw error;
  }
  return siteUrl;
}

export async function createSite(
  userId: string,
  input: SiteInput & { appPassword: string },
  guard: GuardOptions = {},
  db: Db = sql,
): Promise<Site> {
  const siteUrl = await guardedSiteUrl(input.siteUrl, guard);
  return transaction(db, async (tx) => {
    // The user's first site is the default one.
    await tx`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
    const [{ n }] = (await tx`SELECT count(*)::int AS n FROM wordpress_sites WHERE user_id = ${userId}`) as unknown as [{ n: number }];
    const isDefault = input.isDefault || n === 0;
    if (isDefault) await tx`UPDATE wordpress_sites SET is_default = false WHERE user_id = ${userId} AND is_default`;
    const [row] = await tx<SiteRow[]>`
      INSERT INTO wordpress_sites (user_id, site_url, site_name, username, app_password_sealed, is_default, classic_html, link_enabled)
      VALUES (${userId}, ${siteUrl}, ${siteNameOf(siteUrl)}, ${input.username.trim()}, ${seal(input.appPassword.trim(), sealContext(userId))}, ${isDefault},
        ${input.classicHtml ?? false}, ${input.internalLinks ?? true})
      RETURNING id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at`;
    return toSite(row!);
  });
}

export async function updateSite(userId: string, siteId: number, input: SiteInput, guard: GuardOptions = {}, db: Db = sql): Promise<Site> {
  const siteUrl = await guardedSiteUrl(input.siteUrl, guard);
  return transaction(db, async (tx) => {
    const before = await getSite(userId, siteId, tx);
    // Another site at this address: what was uploaded to the old one's media library is not there.
    if (before.siteUrl !== siteUrl) await tx`DELETE FROM wordpress_media WHERE site_id = ${siteId}`;
    if (input.isDefault)
      await tx`UPDATE wordpress_sites SET is_default = false WHERE user_id = ${userId} AND is_default AND id <> ${siteId}`;
    const password = input.appPassword?.trim();
    const [row] = await tx<SiteRow[]>`
      UPDATE wordpress_sites SET
        site_url = ${siteUrl}, site_name = ${siteNameOf(siteUrl)}, username = ${input.username.trim()},
        app_password_sealed = ${password ? seal(password, sealContext(userId)) : sql`app_password_sealed`},
        is_default = ${input.isDefault ? true : sql`is_default`},
        classic_html = ${input.classicHtml ?? sql`classic_html`}, link_enabled = ${input.internalLinks ?? sql`link_enabled`},
        updated_at = now()
      WHERE user_id = ${userId} AND id = ${siteId}
      RETURNING id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at`;
    return toSite(row!);
  });
}

export async function setDefaultSite(userId: string, siteId: number, db: Db = sql): Promise<Site> {
  return transaction(db, async (tx) => {
    await getSite(userId, siteId, tx);
    await tx`UPDATE wordpress_sites SET is_default = false WHERE user_id = ${userId} AND is_default AND id <> ${siteId}`;
    const [row] = await tx<SiteRow[]>`
      UPDATE wordpress_sites SET is_default = true, updated_at = now() WHERE user_id = ${userId} AND id = ${siteId}
      RETURNING id, site_url, site_name, username, is_default, time_zone, classic_html, link_enabled, created_at`;
    return toSite(row!);
  });
}

/** Deletes a site; what was waiting to be published to it is canceled. */
export async function deleteSite(userId: string, siteId: number, db: Db = sql): Promise<void> {
  const jobIds = await transaction(db, async (tx) => {
    const site = await getSite(userId, siteId, tx);
    const canceled = await tx<{ job_id: string | null }[]>`
      UPDATE wordpress_publications SET status = 'canceled', last_error = 'site removed', updated_at = now()
      WHERE user_id = ${userId} AND site_id = ${siteId} AND status = 'queued' RETURNING job_id`;
    await tx`DELETE FROM wordpress_sites WHERE user_id = ${userId} AND id = ${siteId}`;
    if (site.isDefault) {
      await tx`UPDATE wordpress_sites SET is_default = true WHERE id = (SELECT min(id) FROM wordpress_sites WHERE user_id = ${userId})`;
    }
    return canceled.map((r) => r.job_id).filter((id): id is string => Boolean(id));
  });
  await cancelPublishJobs(jobIds);
}

// Calls to a site on the user's behalf

/**
 * Reads the site's time zone from its REST index and keeps it (best effort: an unreachable site
 * keeps what was known). Returns the zone now stored.
 */
export async function refreshSiteTimeZone(userId: string, siteId: number, opts: WpCallOptions = {}): Promise<string | null> {
  const site = await getSite(userId, siteId);
  const zone = await siteTimeZone(site.siteUrl, opts).catch(() => null);
  if (!zone || zone === site.timeZone) return site.timeZone;
  await sql`UPDATE wordpress_sites SET time_zone = ${zone} WHERE user_id = ${userId} AND id = ${siteId}`;
  return zone;
}

export function testConnection(input: SiteCredentials, opts: WpCallOptions = {}): Promise<ConnectionCheck> {
  let siteUrl: string;
  try {
    siteUrl = normalizeSiteUrl(input.siteUrl);
  } catch {
    return Promise.resolve({ ok: false, problem: 'bad_url', detail: 'Not a valid URL' });
  }
  return checkConnection({ ...input, siteUrl }, opts);
}

export async function siteCategories(userId: string, siteId: number, opts: WpCallOptions = {}): Promise<WpCategory[]> {
  const creds = await siteCredentials(userId, siteId);
  return listCategories(creds, opts);
}

/** The editor's image upload: to the site's media library, returning its URL. */
export async function uploadImageToSite(
  userId: string,
  siteId: number,
  file: { data: Buffer; filename: string; mimeType: string },
  opts: WpCallOptions = {},
): Promise<{ id: number; url: string }> {
  const creds = await siteCredentials(userId, siteId);
  return uploadMedia(creds, file, opts);
}
