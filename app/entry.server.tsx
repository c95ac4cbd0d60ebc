import { json, type AppLoadContext, type EntryContext, type HandleDataRequestFunction, type HandleErrorFunction } from '@remix-run/node';
import { RemixServer } from '@remix-run/react';
import { renderToString } from 'react-dom/server';
import { languages } from './i18n';
import { clientResources } from './i18n.server';
import { registerCatalogue } from './utils/i18n-client';
import { documentResponse } from './http/remix-adapter.server';
import { NonceProvider } from './utils/nonce';
import { landingKey, landingRequestKey, storeLanding, type LandingInputs } from './utils/landing-cache.server';
import { setDataTiming, startRenderTiming } from './utils/server-timing.server';
import { failedForDatabase, noteDatabaseError, RETRY_AFTER_SECONDS, unavailableHtml, unavailableJson } from './utils/db-unavailable.server';

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

/**
 * Renders the whole document to one string and answers with it. Postforge defers no data and has no
 * Suspense boundary, so streaming gains nothing, while React's stream encodes each of its many small
 * chunks into 2 KB byte views (a view object per chunk): the same page through renderToString costs
 * about a third of the CPU (issue 19). A page that suspended would get its fallback, not its data.
 */
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
  // The bytes beside the Response, not in a stream around them: the adapter writes them as they are.
  return documentResponse(body, { headers: responseHeaders, status: responseStatusCode });
}
