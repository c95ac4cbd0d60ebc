import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { resetEnv } from '../../app/runtime/env.server';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startPageServer, startSearchServer, type PageServer, type SearchHit, type SearchServer } from '../support/search-server';
import { TestClient, type TestApp } from '../support/app-server';
import { createGenUser, statusCounts } from '../support/generation';

// Research for plans, through the real app and worker loop, against test peers speaking SearXNG's
// and Brave Search's wire formats and a web server for the result pages: the plan prompt is told the
// results' titles and headings, the plan keeps its sources (API and run page, en and zh-HK, no
// script needed), the written post lists them; every result page goes through the outbound guard
// (with the production address rule, loopback and private pages are refused without being asked);
// a search that is down leaves the plan made without research, and says so.

let openai: OpenAiServer;
let search: SearchServer;
let pages: PageServer;
let trap: PageServer;
let app: TestApp;
let stopLoop: () => Promise<void>;
let results: (q: string) => SearchHit[];

const guideA = `<html><head><title>Basil</title><script>document.write('<h2>Scripted heading</h2>')</script></head>
<body><h1>Growing basil indoors</h1><h2 class="x">Soil &amp; light</h2><p>Text.</p><h3>Watering <em>weekly</em></h3><h4>Too deep a heading</h4></body></html>`;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 5 });
  // A host on another loopback address standing in for a private service: nothing may reach it.
  trap = await startPageServer({ '/secret': { html: '<h1>Internal admin</h1>' } }, '127.0.0.2');
  pages = await startPageServer({
    '/guide-a': { html: guideA },
    '/guide-b': { html: '<h1>Basil care</h1><h2>Pruning in spring</h2>' },
    '/hop': { location: `${trap.url}/secret` },
  });
  const base = new URL(pages.url);
  results = () => [
    { url: `${pages.url}/guide-a`, title: 'Guide A: growing basil', text: 'Everything about basil.' },
    // A result that carries credentials: the guard refuses to call it, so it is no source either.
    { url: `http://user:secret@${base.host}/with-credentials`, title: 'Credentials', text: '' },
    { url: `${pages.url}/guide-b`, title: 'Guide B [care]', text: 'Pruning and more.' },
  ];
  search = await startSearchServer({ braveToken: 'brave-test-token', results: (q) => results(q) });
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    OPENROUTER_API_KEY: 'sk-operator',
    GENERATION_PROVIDER_ATTEMPTS: '2',
    SEARXNG_URL: search.url,
    RESEARCH_RESULTS: '3',
    // The result pages live on loopback here; the guard's own test below turns this off.
    ALLOW_PRIVATE_HOSTS: 'true',
  });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
  const loop = await (await import('../../jobs/generation-loop')).startGenerationLoop({ concurrency: 4, perUser: 4 });
  stopLoop = loop.stop;
});

afterAll(async () => {
  await stopLoop?.();
  await app?.close();
  await Promise.all([openai?.close(), search?.close(), pages?.close(), trap?.close()]);
});

/** Changes settings for the rest of a test (the env is read afresh by the app and the worker loop). */
function setEnv(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetEnv();
}

async function signedIn() {
  const u = await createGenUser(getSql(), { credits: 20 });
  const { createSession } = await import('../../app/services/sessions.server');
  const { setCookie } = await createSession(u.id);
  const c = new TestClient(app.url);
  const [pair] = setCookie.split(';');
  c.cookies.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
  return { ...u, c };
}

async function waitFor(runId: string, status: string, want: number) {
  const until = Date.now() + 20_000;
  for (;;) {
    const counts = await statusCounts(getSql(), runId);
    if (!counts.processing && (counts[status] ?? 0) >= want) return counts;
    if (Date.now() > until) throw new Error(`run ${runId}: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type PlanView = { id: string; status: string; research: { status: string; sources: { url: string; title: string }[] } | null };

/** One plan-first topic planned through the API: its run, its plan and the plan request's user message. */
async function planTopic(u: Awaited<ReturnType<typeof signedIn>>, topic: string) {
  const start = await u.c.postJson('/api/generate/text', { prompts: topic, model: 'openai/gpt-4o-mini-search-preview', planFirst: true });
  expect(start.status).toBe(200);
  const { jobId } = (await start.json()) as { jobId: string };
  await waitFor(jobId, 'planned', 1);
  const { plans } = (await (await u.c.get(`/api/jobs/${jobId}/plans`)).json()) as { plans: PlanView[] };
  const asked = openai.requests.filter((r) => r.topic === topic && r.messages[0]!.content.includes('"sections"'));
  expect(asked).toHaveLength(1);
  return { jobId, plan: plans[0]!, prompt: asked[0]!.messages.at(-1)!.content };
}

describe('research for plans', () => {
  it('SearXNG: the plan is made from the results and their headings, keeps them as sources, and the post cites them', async () => {
    const u = await signedIn();
    const { jobId, plan, prompt } = await planTopic(u, 'grow basil');
    expect(search.requests.filter((r) => r.q === 'grow basil').map((r) => r.api)).toEqual(['searxng']);
    // Titles and h1–h3 headings reach the prompt (not h4, nor a heading written by a script).
    for (const text of ['Guide A: growing basil', 'Growing basil indoors', '- Soil & light', '- Watering weekly', 'Pruning in spring']) {
      expect(prompt).toContain(text);
    }
    expect(prompt).not.toContain('Too deep');
    expect(prompt).not.toContain('Scripted');
    expect(prompt).not.toContain('Credentials');
    // The credentials URL went to the guard and no further.
    expect(pages.hits).not.toContain('/with-credentials');
    expect(plan.research).toEqual({
      status: 'found',
      sources: [
        { url: `${pages.url}/guide-a`, title: 'Guide A: growing basil' },
        { url: `${pages.url}/guide-b`, title: 'Guide B [care]' },
      ],
    });
    // The run page lists them, without any script, in English and in Traditional Chinese.
    const en = await (await u.c.get(`/app/runs/${jobId}`)).text();
    expect(en).toContain('Research found 2 sources; the post lists them at its end.');
    expect(en).toContain(`href="${pages.url}/guide-a"`);
    const zh = await (await u.c.get(`/app/runs/${jobId}`, { 'accept-language': 'zh-HK' })).text();
    expect(zh).toContain('資料搜集找到 2 個來源，文章結尾會列出。');
    // A saved edit keeps them; the written post ends with them as links.
    const stored = (await (await u.c.get(`/api/results/${plan.id}/plan`)).json()) as PlanView & { plan: Record<string, unknown> };
    const put = await u.c.request(`/api/results/${plan.id}/plan`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...stored.plan, title: 'Basil, researched' }),
    });
    expect(((await put.json()) as PlanView).research?.sources).toHaveLength(2);
    expect((await u.c.postJson(`/api/jobs/${jobId}/write`, {})).status).toBe(200);
    await waitFor(jobId, 'completed', 1);
    const post = (await (await u.c.get(`/api/results/${plan.id}`)).json()) as { content: string };
    const tail = post.content.slice(post.content.lastIndexOf('<h2>'));
    expect(tail).toMatch(/^<h2>Sources<\/h2>/);
    expect(tail).toContain(`<a href="${pages.url}/guide-a" rel="noopener noreferrer nofollow">Guide A: growing basil</a>`);
    expect(tail).toContain(`<a href="${pages.url}/guide-b" rel="noopener noreferrer nofollow">Guide B [care]</a>`);
  });

  it('with the production address rule, result pages on private addresses are refused by the guard, never asked', async () => {
    const { researchTopic } = await import('../../app/services/generation/research.server');
    setEnv({ ALLOW_PRIVATE_HOSTS: 'false' });
    try {
      results = () => [
        { url: `${pages.url}/guide-a`, title: 'Guide A', text: '' },
        { url: `${trap.url}/secret`, title: 'Private', text: '' },
        { url: `${pages.url}/hop`, title: 'Redirects to a private host', text: '' },
      ];
      // Through the worker: the search API is the operator's own host (read on loopback), every
      // result page is on loopback, so none is asked and the plan is made without sources.
      const u = await signedIn();
      const before = pages.hits.length;
      const { plan, prompt } = await planTopic(u, 'guarded basil');
      expect(search.requests.some((r) => r.q === 'guarded basil')).toBe(true);
      expect(plan.status).toBe('planned');
      expect(plan.research).toEqual({ status: 'empty', sources: [] });
      expect(prompt).not.toContain('Research:');
      expect(pages.hits.length).toBe(before);
      // The same rule with one loopback address standing in for a public site: its page is read,
      // the private one is refused, and so is the redirect to it (after the first hop).
      const research = await researchTopic('guarded basil', { allowAddress: (ip) => ip === '127.0.0.1' });
      expect(research?.status).toBe('found');
      expect(research?.findings.map((f) => [f.title, f.headings])).toEqual([
        ['Guide A', ['Growing basil indoors', 'Soil & light', 'Watering weekly']],
      ]);
      expect(pages.hits.slice(before)).toEqual(['/guide-a', '/hop']);
      expect(trap.hits).toEqual([]);
    } finally {
      setEnv({ ALLOW_PRIVATE_HOSTS: 'true' });
      results = () => [];
    }
  });

  it('Brave Search: its token is sent and web.results read; a wrong token or a search that is down leaves the plan unresearched, noted', async () => {
    const { researchTopic } = await import('../../app/services/generation/research.server');
    results = () => [{ url: `${pages.url}/guide-b`, title: 'Guide B', text: 'Pruning.' }];
    setEnv({ SEARXNG_URL: '', BRAVE_SEARCH_API_KEY: 'brave-test-token', BRAVE_SEARCH_BASE_URL: search.braveUrl });
    try {
      const found = await researchTopic('brave basil');
      expect(found).toEqual({
        status: 'found',
        findings: [{ url: `${pages.url}/guide-b`, title: 'Guide B', snippet: 'Pruning.', headings: ['Basil care', 'Pruning in spring'] }],
      });
      const sent = search.requests.filter((r) => r.q === 'brave basil');
      expect(sent).toEqual([
        { api: 'brave', q: 'brave basil', token: 'brave-test-token', path: expect.stringMatching(/^\/res\/v1\/web\/search\?/) },
      ]);
      setEnv({ BRAVE_SEARCH_API_KEY: 'wrong' });
      expect(await researchTopic('brave basil')).toEqual({ status: 'failed', findings: [] });
    } finally {
      setEnv({ SEARXNG_URL: search.url, BRAVE_SEARCH_API_KEY: '' });
    }

    // SearXNG down (503): the plan is still made, without research, and the run page says so.
    search.setFailure(503);
    try {
      const u = await signedIn();
      const { jobId, plan, prompt } = await planTopic(u, 'unresearched basil');
      expect(plan.status).toBe('planned');
      expect(plan.research).toEqual({ status: 'failed', sources: [] });
      expect(prompt).not.toContain('Research:');
      expect(await (await u.c.get(`/app/runs/${jobId}`)).text()).toContain('Research was not available (the search did not answer)');
      expect(await (await u.c.get(`/app/runs/${jobId}`, { 'accept-language': 'zh-HK' })).text()).toContain('未能進行資料搜集');
    } finally {
      search.setFailure(null);
    }
  });
});
