import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { languageFromHeaders, resources } from '~/i18n.server';

// Personal API tokens at the edge: reading `Authorization: Bearer …`, and the account
// and billing changes a token may not make. The token itself is checked where every JSON request
// is authenticated: apiCaller in api-context.server.ts.

/** The bearer token of an Authorization header: null without one, '' for a malformed Bearer value. */
export function bearerToken(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
  if (!match) return null; // another scheme: not ours
  const token = (match[1] ?? '').trim();
  return /^\S+$/.test(token) ? token : '';
}

/**
 * The `WWW-Authenticate` value of a 401 on the JSON routes (RFC 6750 §3): every 401 names the
 * scheme a script should use; `invalid_token` only when a token was sent and refused (without any
 * credentials the challenge names no error).
 */
export function bearerChallenge(error?: 'invalid_token'): string {
  return error ? `Bearer realm="Postforge", error="${error}"` : 'Bearer realm="Postforge"';
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
