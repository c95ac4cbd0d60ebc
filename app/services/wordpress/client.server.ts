import { type ConnectionFinding, type WpProblem } from '~/utils/wordpress-errors';
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

export type WpErrorBody = { code?: string; message?: string; data?: { status?: number; term_id?: number } };

export function errorOf(res: OutboundResponse): WpError {
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

export function stripTags(s: string): string {
  return s.replace(/<[^>]*>/g, '').trim();
}

export async function call(
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

export async function callOk<T>(...args: Parameters<typeof call>): Promise<{ data: T; res: OutboundResponse }> {
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
  | {
      ok: false;
      problem: WpProblem;
      /** What the site answered (its words, or its HTTP status); null with a finding of ours. */
      detail: string | null;
      finding?: ConnectionFinding;
    };

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
  if (!body.namespaces.includes('wp/v2')) return { ok: false, problem: 'rest_disabled', detail: null, finding: 'no_wp_v2' };
  if (body.authentication && !('application-passwords' in body.authentication)) {
    return { ok: false, problem: 'app_passwords_unavailable', detail: null, finding: 'no_app_passwords' };
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
      return { ok: false, problem: 'forbidden', detail: null, finding: 'cannot_publish' };
    }
    return { ok: true, userName: data.name, timeZone: timeZoneOfIndex(body), seoPlugin: body.namespaces.includes(SEO_PLUGIN_NAMESPACE) };
  } catch (error) {
    if (error instanceof WpError) return { ok: false, problem: error.problem, detail: error.message };
    throw error;
  }
}
