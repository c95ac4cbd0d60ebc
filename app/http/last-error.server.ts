import http from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type pino from 'pino';
import { languageFromHeaders, resources } from '~/i18n.server';
import { isDatabaseUnavailable } from '~/runtime/db-unavailable.server';
import { logUnavailable, sendUnavailable, wantsJson } from '~/http/unavailable.server';

/**
 * The last word on an error nothing before answered (Remix, a handler, a middleware): a database
 * that failed is an outage, the translated 503 logged once as a warning (the outage edge of
 * everything Remix serves: entry.server's handleError throws such a failure out of Remix); a client's
 * mistake found by a body parser keeps its 4xx; anything else is a bug, a 500 logged as an error
 * with the request's id and its stack. Express's own handler would print a bare stack instead.
 */
export function lastErrorHandler(logger: pino.Logger) {
  // Express knows an error handler by its four parameters.
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      // Half an answer cannot be mended: the client sees the connection end.
      logger.error({ requestId: res.locals.requestId as string, method: req.method, path: req.path, err }, 'error after the answer began');
      return void req.socket.destroy();
    }
    if (isDatabaseUnavailable(err)) {
      logUnavailable(req, res, err);
      return void sendUnavailable(req, res);
    }
    const status = Number((err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode);
    if (status >= 400 && status < 500)
      return void res
        .status(status)
        .type('text/plain')
        .send(http.STATUS_CODES[status] ?? 'Bad Request');
    logger.error({ requestId: res.locals.requestId as string, method: req.method, path: req.path, err }, 'unexpected error');
    const message = resources[languageFromHeaders(req.get('cookie'), req.get('accept-language'))].common.errors.generic;
    res.status(500).set('Cache-Control', 'no-store');
    if (wantsJson(req)) res.json({ error: message });
    else res.type('text/plain').send(message);
  };
}
