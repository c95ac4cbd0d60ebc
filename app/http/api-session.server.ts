import { json } from '@remix-run/node';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { getT, languageFromHeaders, resources } from '~/i18n.server';
import { authenticateApiToken } from '~/services/api-tokens.server';
import { hit } from '~/services/rate-limit.server';
import { getSession, type CurrentSession } from '~/services/sessions.server';
import { apiError } from '~/http/json-api.server';
import { tooManyJson } from '~/http/rate-limit-response.server';

// Who is calling a JSON route of SPEC §7: the browser session (cookie), or a personal API token
// (`Authorization: Bearer pf_live_…`, issue 23). With a bearer header the token alone counts (a
// cookie beside it is not consulted): a bad token is a 401 even in a signed-in browser.

/** The API principal: a session, or a token standing in for one (id `token:<uuid>`, no cookie to roll). */
export type ApiSession = CurrentSession & { tokenId?: string };

/** The bearer token of an Authorization header: null without one, '' for a malformed Bearer value. */
export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
  if (!match) return null; // another scheme: not ours
  const token = (match[1] ?? '').trim();
  return /^\S+$/.test(token) ? token : '';
}

async function unauthorized(request: Request, key: 'errors.invalidToken' | 'errors.malformedAuthorization') {
  const t = await getT(request, 'tokens');
  return apiError(401, t(key), { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

/** The signed-in session or token of a JSON route, or the 401/429 Response to return. */
export async function apiSession(request: Request): Promise<ApiSession | Response> {
  const token = bearerToken(request.headers.get('Authorization'));
  if (token === null) {
    const session = await getSession(request);
    if (!session) return apiError(401, (await getT(request, 'auth'))('errors.unauthenticated'));
    return session;
  }
  if (token === '') return unauthorized(request, 'errors.malformedAuthorization');
  const found = await authenticateApiToken(token);
  if (!found) return unauthorized(request, 'errors.invalidToken');
  // Per token, across every process (the limit lives in Postgres).
  const limit = await hit('apiToken', found.tokenId);
  if (limit.limited) return tooManyJson(request, limit);
  return { id: `token:${found.tokenId}`, user: found.user, tokenId: found.tokenId };
}

/** `{ Cache-Control: no-store }` plus the rolled session cookie when there is one. */
export function apiHeaders(session: ApiSession): Headers {
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  if (session.setCookie) headers.append('Set-Cookie', session.setCookie);
  return headers;
}

/** JSON with the principal's headers. */
export function apiJson(session: ApiSession, data: unknown, status = 200) {
  return json(data, { status, headers: apiHeaders(session) });
}

// Account and billing changes stay with the browser session: a leaked token must not take over
// the account (password, provider keys), spend money (checkout) or end a subscription. Reads of
// the same paths (GET /api/settings, GET /api/subscription) are fine.
const SESSION_ONLY_PATHS = new Set([
  '/api/login',
  '/api/logout',
  '/api/register',
  '/api/forgot-password',
  '/api/reset-password',
  '/api/settings',
  '/api/api-keys',
  '/api/subscription/checkout',
  '/api/subscription/cancel',
  '/api/subscription/manual-upgrade',
  '/api/subscription/activate',
]);

export function isSessionOnly(method: string, path: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && SESSION_ONLY_PATHS.has(path.replace(/\/+$/, ''));
}

/**
 * Express middleware (server.ts, before the CSRF check): a bearer request to a session-only call
 * is a translated 403 at once, whatever else it carries.
 */
export function refuseBearerOnSessionOnly(req: ExpressRequest, res: ExpressResponse, next: NextFunction) {
  if (bearerToken(req.get('authorization')) === null || !isSessionOnly(req.method, req.path)) return next();
  const language = languageFromHeaders(req.get('cookie'), req.get('accept-language'));
  res.setHeader('Cache-Control', 'no-store');
  res.status(403).json({ error: resources[language].tokens.errors.sessionOnly, code: 'session_required' });
}
