import { env } from '~/runtime/env.server';
import { getLogger } from '~/runtime/logger.server';
import { braveResults, pageHeadings, searxngResults, type ResearchFinding, type ResearchStatus } from '~/utils/research-sources';
import { OutboundError, outboundRequest, type OutboundOptions } from '../outbound.server';

// Research for a plan, when the operator configured a search API (SearXNG's JSON API or Brave
// Search): the top results for the topic, and the h1–h3 headings of their pages, for the plan
// prompt; the results become the plan's sources. Every request goes through the outbound guard: the
// search API as the operator's trusted host (often a self-hosted SearXNG on a private network), the
// result pages under the full address rule, as any host we did not choose. Nothing here throws: a
// search that fails leaves the plan to be made without research, and says so.

const SEARCH_TIMEOUT_MS = 8_000;
const SEARCH_MAX_BYTES = 2 * 1024 * 1024;
/** A result page is read quickly and only its start: the headings are near the top of most pages. */
const PAGE_TIMEOUT_MS = 5_000;
const PAGE_MAX_BYTES = 1024 * 1024;
/** Brave takes at most 400 characters of query. */
const QUERY_MAX = 400;

export type Research = { status: ResearchStatus; findings: ResearchFinding[] };

/** Exceptions to the address rule for the result pages (tests: a loopback peer standing in for a public site). */
export type PageGuard = Pick<OutboundOptions, 'allowAddress' | 'lookup'>;

type SearchApi = {
  name: 'searxng' | 'brave';
  url: URL;
  headers: Record<string, string>;
  read: (body: unknown, max: number) => ResearchFinding[] | null;
};

/** The search API the operator configured for this topic's query, if any (SearXNG first). */
function searchApi(topic: string): SearchApi | null {
  const q = topic.replace(/\s+/g, ' ').trim().slice(0, QUERY_MAX);
  if (env.SEARXNG_URL) {
    const url = new URL(env.SEARXNG_URL);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/search`;
    url.search = new URLSearchParams({ q, format: 'json' }).toString();
    return { name: 'searxng', url, headers: { Accept: 'application/json' }, read: searxngResults };
  }
  if (env.BRAVE_SEARCH_API_KEY) {
    const url = new URL(env.BRAVE_SEARCH_BASE_URL);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/web/search`;
    url.search = new URLSearchParams({ q, count: String(Math.min(20, env.RESEARCH_RESULTS)) }).toString();
    return {
      name: 'brave',
      url,
      headers: { Accept: 'application/json', 'X-Subscription-Token': env.BRAVE_SEARCH_API_KEY },
      read: braveResults,
    };
  }
  return null;
}

/** The page's headings; `refused` when the guard would not call it (the result is then dropped). */
async function readHeadings(finding: ResearchFinding, guard: PageGuard): Promise<string[] | 'refused'> {
  try {
    const res = await outboundRequest(finding.url, {
      ...guard,
      headers: { Accept: 'text/html,application/xhtml+xml' },
      timeoutMs: PAGE_TIMEOUT_MS,
      maxBytes: PAGE_MAX_BYTES,
      maxRedirects: 3,
    });
    if (res.status !== 200 || !/html/i.test(String(res.headers['content-type'] ?? ''))) return [];
    return pageHeadings(res.text());
  } catch (err) {
    if (err instanceof OutboundError && ['blocked_address', 'bad_scheme', 'bad_url'].includes(err.code)) return 'refused';
    // Slow, too large or gone: the result stays a source, its title is all the prompt gets.
    return [];
  }
}

/**
 * The research for a topic's plan: null when no search API is configured; otherwise the top
 * results (RESEARCH_RESULTS) with their pages' headings, those the guard refused left out.
 */
export async function researchTopic(topic: string, guard: PageGuard = {}): Promise<Research | null> {
  const api = searchApi(topic);
  if (!api) return null;
  let findings: ResearchFinding[] | null;
  try {
    const res = await outboundRequest(api.url, {
      headers: api.headers,
      timeoutMs: SEARCH_TIMEOUT_MS,
      maxBytes: SEARCH_MAX_BYTES,
      maxRedirects: 2,
      trustedHost: api.url.hostname,
    });
    if (res.status !== 200) throw new Error(`the search API answered ${res.status}`);
    findings = api.read(res.json(), env.RESEARCH_RESULTS);
    if (!findings) throw new Error('the search API answered something that is not its JSON');
  } catch (err) {
    getLogger().warn(
      { search: api.name, err: err instanceof Error ? err.message : String(err) },
      'plan research failed; planned without it',
    );
    return { status: 'failed', findings: [] };
  }
  const pages = await Promise.all(findings.map((f) => readHeadings(f, guard)));
  const kept = findings.flatMap((f, i) => {
    const headings = pages[i]!;
    return headings === 'refused' ? [] : [{ ...f, headings }];
  });
  return { status: kept.length > 0 ? 'found' : 'empty', findings: kept };
}
