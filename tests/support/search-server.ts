import http from 'node:http';
import type { AddressInfo } from 'node:net';

// Test peers for a plan's research, over real HTTP: a search API speaking both wire formats the app
// reads (SearXNG's `GET /search?q=&format=json` → results[] {url, title, content}; Brave Search's
// `GET /res/v1/web/search?q=` with `X-Subscription-Token` → web.results[] {url, title, description}),
// and a web server whose pages the results point at, counting what was asked of it.

export type SearchHit = { url: string; title: string; text: string };

export type SearchRequest = { api: 'searxng' | 'brave'; q: string; token: string | undefined; path: string };

export type SearchServer = {
  /** The SearXNG base URL (what SEARXNG_URL names). */
  url: string;
  /** Brave's base URL on this server (what BRAVE_SEARCH_BASE_URL names). */
  braveUrl: string;
  requests: SearchRequest[];
  /** A status to answer every search with (503: the search is down); null: answer normally. */
  setFailure: (status: number | null) => void;
  close: () => Promise<void>;
};

export type SearchServerOptions = {
  /** The results for a query. */
  results: (q: string) => SearchHit[];
  /** Brave's accepted subscription token. */
  braveToken?: string;
};

async function listen(server: http.Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

function closer(server: http.Server) {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

const sendJson = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

export async function startSearchServer(opts: SearchServerOptions): Promise<SearchServer> {
  const requests: SearchRequest[] = [];
  let failure: number | null = null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://search.test');
    const q = url.searchParams.get('q') ?? '';
    const token = req.headers['x-subscription-token'] as string | undefined;
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'method not allowed' });
    if (url.pathname === '/search') {
      requests.push({ api: 'searxng', q, token, path: url.pathname + url.search });
      if (failure) return sendJson(res, failure, { error: 'unavailable' });
      // SearXNG answers 403 when its JSON format is not enabled.
      if (url.searchParams.get('format') !== 'json') return sendJson(res, 403, { error: 'format not allowed' });
      const hits = opts.results(q);
      return sendJson(res, 200, {
        query: q,
        number_of_results: hits.length,
        results: hits.map((h, i) => ({
          url: h.url,
          title: h.title,
          content: h.text,
          engine: 'duckduckgo',
          engines: ['duckduckgo'],
          positions: [i + 1],
          score: 1 / (i + 1),
          category: 'general',
        })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      });
    }
    if (url.pathname === '/res/v1/web/search') {
      requests.push({ api: 'brave', q, token, path: url.pathname + url.search });
      if (failure) return sendJson(res, failure, { type: 'ErrorResponse', error: { status: failure, code: 'UNAVAILABLE' } });
      if (!token || token !== opts.braveToken) {
        return sendJson(res, 401, {
          type: 'ErrorResponse',
          error: { id: 'test', status: 401, code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
        });
      }
      const count = Number(url.searchParams.get('count') ?? 20);
      const hits = opts.results(q).slice(0, count);
      return sendJson(res, 200, {
        type: 'search',
        query: { original: q, more_results_available: false },
        mixed: { type: 'mixed', main: hits.map((_, i) => ({ type: 'web', index: i, all: false })) },
        web: {
          type: 'search',
          family_friendly: true,
          results: hits.map((h) => ({
            type: 'search_result',
            title: h.title,
            url: h.url,
            description: h.text,
            is_source_local: false,
            is_source_both: false,
            language: 'en',
            family_friendly: true,
            profile: { name: new URL(h.url).hostname, url: h.url },
          })),
        },
      });
    }
    sendJson(res, 404, { error: 'not found' });
  });
  const url = await listen(server, '127.0.0.1');
  return { url, braveUrl: `${url}/res/v1`, requests, setFailure: (s) => (failure = s), close: closer(server) };
}

export type Page = { html?: string; status?: number; location?: string; contentType?: string };

export type PageServer = {
  url: string;
  /** The paths asked, in order. */
  hits: string[];
  close: () => Promise<void>;
};

/** A web server on `host` (any loopback address) answering the given pages by path. */
export async function startPageServer(pages: Record<string, Page>, host = '127.0.0.1'): Promise<PageServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push(path);
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<h1>Not found</h1>');
    }
    if (page.location) {
      res.writeHead(page.status ?? 302, { location: page.location });
      return res.end();
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8' });
    res.end(page.html ?? '');
  });
  const url = await listen(server, host);
  return { url, hits, close: closer(server) };
}
