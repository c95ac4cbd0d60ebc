import { Writable } from 'node:stream';
import { json, type AppLoadContext, type EntryContext, type HandleDataRequestFunction, type HandleErrorFunction } from '@remix-run/node';
import { RemixServer } from '@remix-run/react';
import { renderToPipeableStream } from 'react-dom/server';
import { languages } from './i18n';
import { clientResources } from './i18n.server';
import { registerCatalogue } from './utils/i18n-client';
import { NonceProvider } from './utils/nonce';
import { landingKey, landingRequestKey, storeLanding, type LandingInputs } from './utils/landing-cache.server';
import { setDataTiming, startRenderTiming } from './utils/server-timing.server';
import { failedForDatabase, noteDatabaseError, RETRY_AFTER_SECONDS, unavailableHtml, unavailableJson } from './utils/db-unavailable.server';

for (const language of languages) registerCatalogue(language, clientResources(language));

const ABORT_DELAY = 5_000;

/**
 * The key to keep this render under in the landing cache, or null. Only an anonymous page is kept:
 * the `/` route without a query, no user, no toast, no settings, no Set-Cookie. The key is made from
 * that root data, and the page is kept only when the request's own key (what server.ts looks up
 * before Remix runs) is the same, so no personal value can be in a cached page.
 */
function landingCacheKey(request: Request, status: number, headers: Headers, context: EntryContext): string | null {
  if (status !== 200 || headers.has('Set-Cookie')) return null;
  const url = new URL(request.url);
  const requestKey = landingRequestKey(
    request.method,
    url.pathname + url.search,
    request.headers.get('Cookie') ?? undefined,
    request.headers.get('Accept-Language') ?? undefined,
  );
  if (!requestKey) return null;
  const { matches, loaderData, actionData, errors } = context.staticHandlerContext;
  if (actionData || errors || matches.at(-1)?.route.id !== 'routes/_index') return null;
  const root = loaderData.root as (LandingInputs & { user?: unknown; toast?: unknown; settings?: unknown }) | undefined;
  if (!root || root.user !== null || root.toast !== null || root.settings !== null) return null;
  return landingKey(root) === requestKey ? requestKey : null;
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

export const handleDataRequest: HandleDataRequestFunction = async (response, { request }) => {
  if (failedForDatabase(request))
    return json(await unavailableJson(request.headers.get('cookie'), request.headers.get('accept-language')), {
      status: 503,
      headers: unavailableHeaders,
    });
  setDataTiming(response.headers);
  return response;
};

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
  const finishTiming = startRenderTiming();
  const nonce = loadContext.cspNonce ?? '';
  const key = nonce ? landingCacheKey(request, responseStatusCode, responseHeaders, remixContext) : null;
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  return new Promise<Response>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      // React aborts a render whose destination closes; this one closes only after the whole page is
      // in, and that late abort ended the sink a second time (an error object with its stack per request).
      emitClose: false,
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        // Clearing the abort timer releases the finished render at once (RSS under load).
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        if (key && responseStatusCode === 200) storeLanding(key, body, nonce, responseHeaders);
        // After storing: a cached landing page never replays this request's timing.
        finishTiming(responseHeaders);
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
