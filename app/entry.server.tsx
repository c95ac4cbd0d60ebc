import { type AppLoadContext, type EntryContext, type HandleDataRequestFunction, type HandleErrorFunction } from '@remix-run/node';
import { RemixServer } from '@remix-run/react';
import { renderToString } from 'react-dom/server';
import { languages } from './i18n';
import { clientResources } from './i18n.server';
import { registerCatalogue } from './utils/i18n-client';
import { NonceProvider } from './utils/nonce';
import { landingKey, landingRequestKey, storeLanding, type LandingInputs } from './runtime/landing-cache.server';
import { setDataTiming, startRenderTiming } from './runtime/server-timing.server';
import { noteDatabaseError } from './runtime/db-unavailable.server';
import { env } from './runtime/env.server';
import { getLogger } from './runtime/logger.server';
import { requestIdOf } from './runtime/request-id.server';
import { compressWhole, MIN_COMPRESSED_BYTES, preferredEncoding } from './runtime/compression.server';

for (const language of languages) registerCatalogue(language, clientResources(language));

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
 * A database that cannot be reached, or a connection lost under a loader, is an outage, not Remix's
 * to render: the error is thrown on, out of Remix's handler, to server.ts's outage edge (a read
 * served once more, else the translated 503 logged once), whatever kind of route it came from. A
 * page's other loaders have all settled by then. Anything else is a bug: logged as an error with
 * its request id (and, in tests, where the logger is silent, on the console, so the test fails on
 * it).
 */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (noteDatabaseError(error)) throw error;
  if (request.signal.aborted) return;
  getLogger().error(
    { requestId: requestIdOf(request), method: request.method, path: new URL(request.url).pathname, err: error },
    'unexpected error',
  );
  if (env.NODE_ENV === 'test') console.error(error);
};

export const handleDataRequest: HandleDataRequestFunction = (response) => {
  setDataTiming(response.headers);
  return response;
};

/**
 * Renders the whole document to one string and answers with it. Postforge defers no data and has no
 * Suspense boundary, so streaming gains nothing, while React's stream encodes each of its many small
 * chunks into 2 KB byte views (a view object per chunk): the same page through renderToString costs
 * about a third of the CPU. A page that suspended would get its fallback, not its data.
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const finishTiming = startRenderTiming();
  const nonce = loadContext.cspNonce ?? '';
  const key = nonce ? landingCacheKey(request, responseStatusCode, responseHeaders, remixContext) : null;
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
  // A render error throws here, as a shell error did: Remix renders the error boundary instead.
  const body = Buffer.from(
    '<!DOCTYPE html>' +
      renderToString(
        <NonceProvider value={nonce}>
          <RemixServer context={remixContext} url={request.url} nonce={nonce} />
        </NonceProvider>,
      ),
  );
  if (key && responseStatusCode === 200) storeLanding(key, body, nonce, responseHeaders);
  // After storing: a cached landing page never replays this request's timing.
  finishTiming(responseHeaders);
  // The page is compressed here, whole, rather than streamed through the compression middleware
  // (which leaves an encoded answer alone); its length goes up front either way, so it is never
  // sent chunked.
  const encoding =
    request.method === 'HEAD' || body.length < MIN_COMPRESSED_BYTES ? null : preferredEncoding(request.headers.get('Accept-Encoding'));
  const sent = encoding ? compressWhole(body, encoding) : body;
  if (encoding) responseHeaders.set('Content-Encoding', encoding);
  if (!/accept-encoding/i.test(responseHeaders.get('Vary') ?? '')) responseHeaders.append('Vary', 'Accept-Encoding');
  responseHeaders.set('Content-Length', String(sent.length));
  return new Response(sent, { headers: responseHeaders, status: responseStatusCode });
}
