import { decodeEntities } from './html-entities';

// Research for a plan, the pure half: the search APIs' answers read as results, a page's h1–h3
// headings, what the plan prompt is told of them and the Sources list a written post ends with.
// The network half is app/services/generation/research.server.ts.

/** A source a plan found: a search result (its page's headings are read for the prompt only). */
export type ResearchSource = { url: string; title: string };

/** How a plan's research went: sources found, nothing usable found, or the search failed. */
export type ResearchStatus = 'found' | 'empty' | 'failed';

export type ResearchFinding = ResearchSource & { snippet: string; headings: string[] };

export const RESEARCH_LIMITS = { title: 200, snippet: 300, heading: 150, headings: 15 } as const;

const clean = (v: unknown, max: number): string =>
  typeof v === 'string'
    ? v
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, max)
    : '';

/** An absolute URL, as text (whether it may be called is the outbound guard's to judge); null for anything else. */
function absoluteUrl(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  try {
    return new URL(v).href;
  } catch {
    return null;
  }
}

function resultsOf(list: unknown, text: 'content' | 'description', max: number): ResearchFinding[] {
  if (!Array.isArray(list)) return [];
  const seen = new Set<string>();
  const out: ResearchFinding[] = [];
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    const url = absoluteUrl(r.url);
    const title = clean(r.title, RESEARCH_LIMITS.title);
    if (!url || !title || seen.has(url)) continue;
    seen.add(url);
    out.push({ url, title, snippet: clean(r[text], RESEARCH_LIMITS.snippet), headings: [] });
    if (out.length >= max) break;
  }
  return out;
}

/** SearXNG's JSON answer (`/search?format=json`): its `results` with url, title and content. */
export function searxngResults(body: unknown, max: number): ResearchFinding[] | null {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { results?: unknown }).results)) return null;
  return resultsOf((body as { results: unknown[] }).results, 'content', max);
}

/** Brave Search's web answer: `web.results` with url, title and description (no `web`: nothing found). */
export function braveResults(body: unknown, max: number): ResearchFinding[] | null {
  if (!body || typeof body !== 'object') return null;
  const web = (body as { web?: { results?: unknown } }).web;
  if (web === undefined) return (body as { type?: unknown }).type === 'search' ? [] : null;
  return resultsOf(web?.results, 'description', max);
}

/** The text of a page's h1–h3 headings, in page order (scripts, styles and duplicates left out). */
export function pageHeadings(html: string): string[] {
  const body = html.replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<!--[\s\S]*?-->/g, ' ');
  const out: string[] = [];
  for (const m of body.matchAll(/<h([1-3])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi)) {
    let text = clean(m[2], 1000);
    try {
      text = decodeEntities(text);
    } catch {
      // A malformed numeric reference: the text as it is.
    }
    text = text.replace(/\s+/g, ' ').trim().slice(0, RESEARCH_LIMITS.heading);
    if (text && !out.includes(text)) out.push(text);
    if (out.length >= RESEARCH_LIMITS.headings) break;
  }
  return out;
}

/** What the plan prompt is told of the research: each result's title, where it is, and its headings. */
export function researchBrief(findings: ResearchFinding[]): string {
  if (findings.length === 0) return '';
  const lines = [
    'Research: the top search results for this topic and their headings. Use them to see what readers expect the post to cover; do not copy them.',
  ];
  findings.forEach((f, i) => {
    lines.push(`${i + 1}. ${f.title} (${new URL(f.url).hostname})`);
    if (f.snippet) lines.push(`   ${f.snippet}`);
    for (const h of f.headings) lines.push(`   - ${h}`);
  });
  return lines.join('\n');
}

const escapeLinkText = (s: string) => s.replace(/([\\[\]*_`<>])/g, '\\$1');

/** The Markdown a post from a researched plan ends with: its sources as links. */
export function sourcesMarkdown(sources: ResearchSource[], heading: string): string {
  if (sources.length === 0) return '';
  const items = sources.map((s) => `- [${escapeLinkText(s.title)}](<${s.url.replace(/[<>\s]/g, encodeURIComponent)}>)`);
  return `## ${heading}\n\n${items.join('\n')}`;
}
