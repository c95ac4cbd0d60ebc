import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, Response } from 'express';
import { databaseMarkedDown, isConnectionLost } from '~/runtime/db-unavailable.server';
import { getLogger } from '~/runtime/logger.server';
import { forgetRequestMemo } from '~/runtime/request-scope.server';

/** Backends are mostly terminated together (an operator, a failover): a moment lets the pool see every one of them go, so the second try does not meet another. */
const RETRY_PAUSE_MS = 50;

/** An Express handler that says when it is done (as @remix-run/express's is). */
type AsyncHandler = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/**
 * Wraps the Remix handler: a read that failed only because its database connection was lost under
 * it (a terminated backend; the pool has already dropped that connection; entry.server's handleError
 * throws it out of Remix) is served once more, when that is safe: a GET or HEAD, whose loaders only
 * read or make writes that may be made twice (a session's rolling expiry, a payment return's booking
 * keyed by its session; an API token's rate-limit count is the one thing a second try counts again),
 * while the database is not known to be down, nothing has been written and the client still waits.
 * Any other error goes on to server.ts's last error handler (a failure for the database: the 503).
 */
export function retryReadOnLostConnection(handler: AsyncHandler): AsyncHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return handler(req, res, next);
    const again = async (lost: unknown) => {
      await sleep(RETRY_PAUSE_MS);
      forgetRequestMemo();
      let failed = false;
      await handler(req, res, (err?: unknown) => {
        failed = err !== undefined;
        next(err);
      });
      if (!failed)
        getLogger().info(
          { requestId: res.locals.requestId as string | undefined, code: (lost as { code?: unknown }).code },
          'database connection lost: served on a second try',
        );
    };
    let lost: unknown;
    await handler(req, res, (err?: unknown) => {
      if (!isConnectionLost(err) || databaseMarkedDown() || res.closed || res.headersSent) return next(err);
      lost = err;
    });
    if (lost !== undefined) await again(lost).catch(next);
  };
}
