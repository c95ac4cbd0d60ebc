import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import {
  databaseErrorFields,
  RETRY_AFTER_SECONDS,
  unavailableHtml,
  unavailableJson,
  type UnavailableReason,
} from '~/runtime/db-unavailable.server';
import { getLogger } from '~/runtime/logger.server';

// The one way a web process says "not now": 503 with Retry-After, in the visitor's language, as
// JSON for the API, Remix data requests and clients that ask for JSON, as a small page otherwise.
// Used for a database that is unreachable or lost mid-request (server.ts's gate
// and error handler, the Stripe webhook) and for a full request line.

/** JSON for the API, data requests and clients that ask for it; a page otherwise. */
export function wantsJson(req: ExpressRequest): boolean {
  return req.path.startsWith('/api/') || '_data' in req.query || req.accepts(['html', 'json']) === 'json';
}

/** Answers the translated 503 with Retry-After (nothing is written when the answer has begun). */
export async function sendUnavailable(req: ExpressRequest, res: ExpressResponse, reason: UnavailableReason = 'database'): Promise<void> {
  const cookie = req.get('cookie');
  const accept = req.get('accept-language');
  // Never rejects: its callers answer from timers and promise callbacks, where nothing would catch it.
  const body = await (wantsJson(req) ? unavailableJson(cookie, accept, reason) : unavailableHtml(cookie, accept, reason)).catch(() => null);
  if (res.headersSent) return;
  res.status(503).set({ 'Retry-After': String(RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' });
  if (body === null) res.type('text/plain').send('Service Unavailable');
  else if (typeof body === 'string') res.type('html').send(body);
  else res.json(body);
}

/**
 * The one log line of a request answered 503 for want of its database: a warning with the request's
 * id and the error's code and message. No stack: an outage is not a bug in the code.
 */
export function logUnavailable(req: ExpressRequest, res: ExpressResponse, err?: unknown): void {
  getLogger().warn(
    { requestId: res.locals.requestId as string | undefined, method: req.method, path: req.path, ...(err ? databaseErrorFields(err) : {}) },
    'database unavailable: answered 503',
  );
}
