import { Writable } from 'node:stream';
import { json, type AppLoadContext, type EntryContext, type HandleDataRequestFunction, type HandleErrorFunction } from '@remix-run/node';
import { RemixServer } from '@remix-run/react';
import { renderToPipeableStream } from 'react-dom/server';
import { languages } from './i18n';
import { clientResources } from './i18n.server';
import { registerCatalogue } from './utils/i18n-client';
import { NonceProvider } from './utils/nonce';
import { failedForDatabase, noteDatabaseError, RETRY_AFTER_SECONDS, unavailableHtml, unavailableJson } from './utils/db-unavailable.server';

for (const language of languages) registerCatalogue(language, clientResources(language));

const ABORT_DELAY = 5_000;

/**
 * The anonymous landing page, rendered once per distinct root data and served again with the
 * request's CSP nonce. It is cached only when what it is rendered from is anonymous: the `/` route
 * without a query, no user, no toast, no Set-Cookie. The key is that root data itself (language,
 * time zone, catalogue version), so no personal value can be in a cached page, and none can differ
 * between the requests that share it.
 */
const LANDING_TTL_MS = 5 * 60 * 1000;
const LANDING_MAX_ENTRIES = 64;
const landingCache = new Map<string, { at: number; parts: Buffer[] }>();

function landingKey(request: Request, status: number, headers: Headers, context: EntryContext): string | null {
  if (request.method !== 'GET' || status !== 200 || headers.has('Set-Cookie')) return null;
  const url = new URL(request.url);
  if (url.pathname !== '/' || url.search) return null;
  const { matches, loaderData, actionData, errors } = context.staticHandlerContext;
  if (actionData || errors || matches.at(-1)?.route.id !== 'routes/_index') return null;
  const root = loaderData.root as { user?: unknown; toast?: unknown } | undefined;
  if (!root || root.user !== null || root.toast !== null) return null;
  return JSON.stringify(root);
}

/** The pieces of body between occurrences of separator (the nonce). */
function splitAround(body: Buffer, separator: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(separator); at !== -1; at = body.indexOf(separator, from)) {
    parts.push(body.subarray(from, at));
    from = at + separator.length;
  }
  parts.push(body.subarray(from));
  return parts;
}

/**
 * Renders the whole document, then answers with one body. Postforge defers no data, so streaming
 * gains nothing here, while React's many small chunks each cost a socket write (measured: the
 * largest item of the signed-in page's CPU profile).
 */
/** A database that cannot be reached is an outage (503, logged in one line), not a bug. */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (noteDatabaseError(error, request)) return void console.warn(`database unreachable: ${(error as Error).message}`);
  if (!request.signal.aborted) console.error(error);
};

const unavailableHeaders = { 'Retry-After': String(RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' };

export const handleDataRequest: HandleDataRequestFunction = async (response, { request }) =>
  failedForDatabase(request)
    ? json(await unavailableJson(request.headers.get('cookie'), request.headers.get('accept-language')), {
        status: 503,
        headers: unavailableHeaders,
      })
    : response;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  if (failedForDatabase(request)) {
    const html = await unavailableHtml(request.headers.get('cookie'), request.headers.get('accept-language'));
    return new Response(html, { status: 503, headers: { ...unavailableHeaders, 'Content-Type': 'text/html; charset=utf-8' } });
  }
  const nonce = loadContext.cspNonce ?? '';
  const key = nonce ? landingKey(request, responseStatusCode, responseHeaders, remixContext) : null;
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  if (key) {
    const hit = landingCache.get(key);
    if (hit && Date.now() - hit.at < LANDING_TTL_MS) {
      responseHeaders.set('X-Page-Cache', 'hit');
      const fresh = Buffer.from(nonce);
      const body = Buffer.concat(hit.parts.flatMap((part, i) => (i ? [fresh, part] : [part])));
      return Promise.resolve(new Response(body, { headers: responseHeaders, status: responseStatusCode }));
    }
  }
  return new Promise<Response>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        // Clearing the abort timer releases the finished render at once (RSS under load).
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        if (key && responseStatusCode === 200) {
          if (landingCache.size >= LANDING_MAX_ENTRIES) landingCache.delete(landingCache.keys().next().value!);
          landingCache.set(key, { at: Date.now(), parts: splitAround(body, Buffer.from(nonce)) });
        }
        resolve(new Response(body, { headers: responseHeaders, status: responseStatusCode }));
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          pipe(sink);
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          console.error(error);
        },
      },
    );
    const timer = setTimeout(abort, ABORT_DELAY);
  });
}
