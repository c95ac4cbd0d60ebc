/**
 * The patch of @remix-run/server-runtime (patches/@remix-run+server-runtime+2.17.5.patch, docs/development.md
 * "Patched packages"): a page's loaders get the request itself when there is nothing to strip from
 * its URL, and a document request's loader data skips the JSON Response it was wrapped in, with the
 * same JSON semantics; data requests and resource routes answer as before.
 */
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testBuild } from '../support/remix-build';

const require = createRequire(import.meta.url);
// The CommonJS build, which Node loads on the server.
const { createRequestHandler } = require('@remix-run/server-runtime') as {
  createRequestHandler: (build: unknown, mode?: string) => (request: Request, context?: unknown) => Promise<Response>;
};

const seen: { route: string; request: Request }[] = [];
const loader =
  (route: string, data: unknown) =>
  ({ request }: { request: Request }) => {
    seen.push({ route, request });
    return data;
  };
const Page = () => null;

/** Three routes: the root, a page and a resource route; the entry answers with the loader data it got. */
const build = testBuild(
  [
    { id: 'root', path: '', module: { default: Page, loader: loader('root', { user: 'ada' }) } },
    {
      id: 'routes/page',
      parentId: 'root',
      path: 'page',
      module: {
        default: Page,
        loader: loader('routes/page', { when: new Date(0), count: 1, gone: undefined, nested: [{ at: new Date(1000) }] }),
      },
    },
    { id: 'routes/feed', parentId: 'root', path: 'feed', module: { loader: loader('routes/feed', { items: [1, 2] }) } },
  ],
  (_request, status, headers, context) => new Response(JSON.stringify(context.staticHandlerContext.loaderData), { status, headers }),
);

const handle = createRequestHandler(build, 'production');
const RealResponse = globalThis.Response;
let responses = 0;

beforeEach(() => {
  seen.length = 0;
  responses = 0;
  globalThis.Response = class CountedResponse extends RealResponse {
    constructor(...args: ConstructorParameters<typeof Response>) {
      super(...args);
      responses++;
    }
  };
});
afterEach(() => {
  globalThis.Response = RealResponse;
});

describe('patched @remix-run/server-runtime', () => {
  it('gives a page’s loaders the request itself and its data without a JSON Response, as JSON', async () => {
    const request = new Request('http://localhost/page?tab=results');
    const response = await handle(request);
    expect(response.status).toBe(200);
    // The data as a JSON Response carried it: dates as ISO strings, undefined left out.
    expect(await response.json()).toEqual({
      root: { user: 'ada' },
      'routes/page': { when: '1970-01-01T00:00:00.000Z', count: 1, nested: [{ at: '1970-01-01T00:00:01.000Z' }] },
    });
    expect(seen.map((s) => s.route).sort()).toEqual(['root', 'routes/page']);
    // Unpatched, each loader got a copy (a Request and an AbortSignal each) with the same URL.
    for (const { request: got } of seen) expect(got).toBe(request);
    // Only the document's own Response: unpatched, one more per loader.
    expect(responses).toBe(1);
  });

  it('copies the request as before when stripping changes its URL', async () => {
    // Deleting a search parameter writes the query anew (a space as +), so the loaders get a copy.
    await handle(new Request('http://localhost/page?q=a%20b'));
    for (const { request } of seen) expect(request.url).toBe('http://localhost/page?q=a+b');
  });

  it('still strips _data and answers data requests with a JSON Response', async () => {
    const response = await handle(new Request('http://localhost/page?x=1&_data=routes%2Fpage'));
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ when: '1970-01-01T00:00:00.000Z', count: 1, nested: [{ at: '1970-01-01T00:00:01.000Z' }] });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.request.url).toBe('http://localhost/page?x=1');
  });

  it('answers a resource route’s data as a JSON Response', async () => {
    const response = await handle(new Request('http://localhost/feed'));
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ items: [1, 2] });
  });
});
