import {
  createReadableStreamFromReadable,
  createRequestHandler as createRemixHandler,
  writeReadableStreamToWritable,
  type AppLoadContext,
  type ServerBuild,
} from '@remix-run/node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { databaseErrorOf, databaseMarkedDown, failedForDatabase, isConnectionLost } from '~/runtime/db-unavailable.server';
import { getLogger } from '~/runtime/logger.server';
import { forgetRequestMemo } from '~/runtime/request-scope.server';
import { logUnavailable, sendUnavailable } from '~/http/unavailable.server';

// Express in, Remix, Express out: our own adapter in place of @remix-run/express's (whose public
// API is the whole handler), the same request and response, with one difference: a rendered page
// is written as it is (a string or bytes). A page
// used to travel as a Response body, a web stream (made transferable, then read back chunk by
// chunk) around text that was all there already: about 2 % of a signed-in page's CPU (issue 19).

/** Where a page's text rides on its Response (a global symbol: the Remix build and the server are two bundles). */
const DOCUMENT_BODY = Symbol.for('postforge.document-body');

type DocumentResponse = Response & { [DOCUMENT_BODY]?: string | Buffer };

/**
 * A rendered page's Response: its status and headers, with the page beside it rather than in a
 * stream. A Response made from it elsewhere (Remix's HEAD answer) carries no body, as it should.
 */
export function documentResponse(body: string | Buffer, init: ResponseInit): Response {
  const response: DocumentResponse = new Response(null, init);
  response[DOCUMENT_BODY] = body;
  return response;
}

/** The page of a Response made by documentResponse, if it is one. */
export function documentBody(response: Response): string | Buffer | undefined {
  return (response as DocumentResponse)[DOCUMENT_BODY];
}

/** The Fetch request of an Express request: its full URL (host and port as the client gave them), headers, body, abort. */
function remixRequest(req: ExpressRequest, res: ExpressResponse): Request {
  // req.hostname follows `trust proxy` but drops the port: the port comes from X-Forwarded-Host or Host.
  const portOf = (host: string | undefined) => Number.parseInt(host?.split(':')[1] ?? '', 10);
  const forwardedPort = portOf(req.get('X-Forwarded-Host'));
  const hostPort = portOf(req.get('host'));
  const port = Number.isSafeInteger(forwardedPort) ? forwardedPort : Number.isSafeInteger(hostPort) ? hostPort : null;
  const url = `${req.protocol}://${req.hostname}${port ? `:${port}` : ''}${req.originalUrl}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value) headers.set(name, value);
  }
  // Loaders and actions are aborted when the client goes before its answer is sent.
  let controller: AbortController | null = new AbortController();
  res.on('finish', () => (controller = null));
  res.on('close', () => controller?.abort());
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: controller.signal };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = createReadableStreamFromReadable(req);
    init.duplex = 'half';
  }
  return new Request(url, init);
}

async function sendResponse(res: ExpressResponse, response: Response): Promise<void> {
  res.statusMessage = response.statusText;
  res.status(response.status);
  // Each Set-Cookie apart: the Headers iterator yields them one by one.
  for (const [name, value] of response.headers) res.append(name, value);
  const page = documentBody(response);
  if (page !== undefined) {
    // Its length up front: compression writes the head before the body (dropping the length only
    // when it compresses), so without it a page would go out chunked.
    res.setHeader('Content-Length', Buffer.byteLength(page));
    return void res.end(page);
  }
  if (/text\/event-stream/i.test(response.headers.get('Content-Type') ?? '')) res.flushHeaders();
  if (response.body) await writeReadableStreamToWritable(response.body, res);
  else res.end();
}

const RETRY_PAUSE_MS = 50;

/** Lets go of an answer that will not be sent. */
const discard = (response: Response) => response.body?.cancel().catch(() => {});

/**
 * A request that failed only because its database connection was lost under it (a terminated
 * backend; the pool has already dropped that connection) is served once more when that is safe: a
 * GET or HEAD, whose loaders only read or make writes that may be made twice (a session's rolling
 * expiry, a payment return's booking keyed by its session; an API token's rate-limit count is the
 * one thing a second try counts again), while the database is not known to be down and the client
 * still waits. Anything else that failed for the database is answered 503.
 */
function worthAnotherTry(req: ExpressRequest, res: ExpressResponse, request: Request): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') && isConnectionLost(databaseErrorOf(request)) && !databaseMarkedDown() && !res.closed
  );
}

/** The Express handler that answers with the Remix build. */
export function remixHandler({
  build,
  mode,
  getLoadContext,
}: {
  build: ServerBuild;
  mode: 'production' | 'development';
  getLoadContext: (req: ExpressRequest, res: ExpressResponse) => AppLoadContext;
}) {
  const handle = createRemixHandler(build, mode);
  return async (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    try {
      const context = getLoadContext(req, res);
      let request = remixRequest(req, res);
      let response = await handle(request, context);
      if (failedForDatabase(request) && worthAnotherTry(req, res, request)) {
        await discard(response);
        // Backends are mostly terminated together (an operator, a failover): a moment lets the pool
        // see every one of them go, so the second try does not meet another.
        await sleep(RETRY_PAUSE_MS);
        forgetRequestMemo();
        const lost = databaseErrorOf(request);
        request = remixRequest(req, res);
        response = await handle(request, context);
        if (!failedForDatabase(request))
          getLogger().info(
            { requestId: res.locals.requestId as string | undefined, code: (lost as { code?: unknown }).code },
            'database connection lost: served on a second try',
          );
      }
      // Whatever Remix made of it (a 500, an error boundary), a request that failed for want of its
      // database is an outage: the translated 503, logged once here.
      if (failedForDatabase(request)) {
        await discard(response);
        logUnavailable(req, res, databaseErrorOf(request));
        return await sendUnavailable(req, res);
      }
      await sendResponse(res, response);
    } catch (error) {
      next(error);
    }
  };
}
