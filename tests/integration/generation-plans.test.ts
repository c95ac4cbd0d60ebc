import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { resetEnv } from '../../app/runtime/env.server';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startPageServer, startSearchServer, type PageServer, type SearchHit, type SearchServer } from '../support/search-server';
import type { TestApp } from '../support/app-server';
import { available, signedInGenUser, openHolds, statusCounts } from '../support/generation';

// Plan first, through the real app and the real worker loop against the OpenAI test server: plans
// made and held, edited, dropped, re-planned and written section by section (JSON API and the run
// page's forms without JavaScript), the post's length within ±15 % of the length asked, and a
// write that resumes after a crash asking only for the sections still missing; and the ledger's
// property over random sequences of plan steps: every post's credits held once, charged once when
// written, released once when dropped, never both, nothing left open but the plans still waiting.
// Then research for plans, against test peers speaking SearXNG's and Brave Search's wire formats and
// a web server for the result pages: the plan prompt is told the results' titles and headings, the
// plan keeps its sources (API and run page, en and zh-HK, no script needed), the written post lists
// them; every result page goes through the outbound guard (with the production address rule,
// loopback and private pages are refused without being asked); a search that is down leaves the
// plan made without research, and says so.

let openai: OpenAiServer;
let app: TestApp;
let stopLoop: () => Promise<void>;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 5 });
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator', GENERATION_PROVIDER_ATTEMPTS: '2' });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
  const loop = await (await import('../../jobs/generation-loop')).startGenerationLoop({ concurrency: 4, perUser: 4 });
  stopLoop = loop.stop;
});

afterAll(async () => {
  await stopLoop?.();
  await app?.close();
  await openai?.close();
});

function signedIn(credits: number) {
  return signedInGenUser(getSql(), app.url, { credits });
}

const TEXT = 'openai/gpt-4o-mini-search-preview';

/** Waits until the run has no item processing and `want` of its items are in `status`. */
async function waitFor(runId: string, status: string, want: number) {
  const until = Date.now() + 30_000;
  for (;;) {
    const counts = await statusCounts(getSql(), runId);
    if (!counts.processing && (counts[status] ?? 0) >= want) return counts;
    if (Date.now() > until) throw new Error(`run ${runId}: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type PlanView = {
  id: string;
  status: string;
  phase: string;
  credits: number;
  plan: { title: string; metaDescription: string; sections: { level: number; heading: string; intent: string }[]; faq: string[] };
};

const sectionRequests = (topic: string) =>
  openai.requests.filter((r) => r.topic === topic && r.messages.some((m) => m.content.includes('Write only the section asked for')));

const wordsOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .split(/\s+/)
    .filter(Boolean).length;

describe('plan first', () => {
  it('plans, holds, edits, drops, re-plans and writes from the plan through the API; the post honours the outline and its length', async () => {
    const u = await signedIn(20);
    const before = await available(getSql(), u.id);
    const start = await u.c.postJson('/api/generate/text', {
      prompts: 'plan alpha\nplan beta\nplan gamma',
      model: TEXT,
      planFirst: true,
      includeQA: true,
      contentLength: 'Medium',
    });
    expect(start.status).toBe(200);
    const { jobId, credits } = (await start.json()) as { jobId: string; credits: number };
    const each = credits / 3;
    await waitFor(jobId, 'planned', 3);
    const job = (await (await u.c.get(`/api/jobs/${jobId}`)).json()) as { status: string; plannedPrompts: number };
    expect(job).toMatchObject({ status: 'planned', plannedPrompts: 3 });
    // Planning charged nothing: the posts' credits are held, all three.
    expect(await available(getSql(), u.id)).toBe(before - credits);
    expect(await openHolds(getSql(), u.id)).toBe(3);

    const { plans } = (await (await u.c.get(`/api/jobs/${jobId}/plans`)).json()) as { plans: PlanView[] };
    expect(plans.map((p) => p.status)).toEqual(['planned', 'planned', 'planned']);
    const [alpha, beta, gamma] = plans as [PlanView, PlanView, PlanView];
    expect(alpha.plan.sections).toHaveLength(6);
    expect(alpha.plan.faq.length).toBeGreaterThan(0);

    // Edit alpha: new title, sections reordered and renamed, one removed, one added.
    const edited = {
      ...alpha.plan,
      title: 'Alpha, edited',
      sections: [
        { level: 2, heading: 'Getting started first', intent: 'Begin here.' },
        { level: 2, heading: 'Why it matters', intent: '' },
        { level: 3, heading: 'A new subsection', intent: 'Added by hand.' },
        { level: 2, heading: 'Common mistakes', intent: '' },
        { level: 2, heading: 'Conclusion', intent: '' },
      ],
    };
    const put = await u.c.request(`/api/results/${alpha.id}/plan`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(edited),
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as PlanView).plan.title).toBe('Alpha, edited');
    const bad = await u.c.request(`/api/results/${alpha.id}/plan`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...edited, sections: [] }),
    });
    expect(bad.status).toBe(400);

    // Drop gamma: its hold is released, once.
    const drop = await u.c.request(`/api/results/${gamma.id}/plan`, { method: 'DELETE' });
    expect(drop.status).toBe(200);
    expect(await available(getSql(), u.id)).toBe(before - 2 * each);
    expect((await u.c.request(`/api/results/${gamma.id}/plan`, { method: 'DELETE' })).status).toBe(409);

    // Re-plan beta: planned again, same hold, nothing more charged.
    const asked = openai.requests.length;
    expect((await u.c.postJson(`/api/results/${beta.id}/plan/replan`, {})).status).toBe(200);
    await waitFor(jobId, 'planned', 2);
    expect(openai.requests.length).toBe(asked + 1);
    expect(await available(getSql(), u.id)).toBe(before - 2 * each);

    // Another user sees none of it.
    const other = await signedIn(0);
    expect((await other.c.get(`/api/results/${alpha.id}/plan`)).status).toBe(404);
    expect((await other.c.postJson(`/api/jobs/${jobId}/write`, {})).status).toBe(404);

    // Write alpha only.
    const write = await u.c.postJson(`/api/jobs/${jobId}/write`, { resultIds: [alpha.id] });
    expect(write.status).toBe(200);
    expect(((await write.json()) as { queued: number }).queued).toBe(1);
    await waitFor(jobId, 'completed', 1);
    const post = (await (await u.c.get(`/api/results/${alpha.id}`)).json()) as { title: string; content: string; status: string };
    expect(post).toMatchObject({ status: 'completed', title: 'Alpha, edited' });
    const headings = [...post.content.matchAll(/<h([23])>([^<]*)<\/h\1>/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(headings.slice(0, 5)).toEqual([
      '2 Getting started first',
      '2 Why it matters',
      '3 A new subsection',
      '2 Common mistakes',
      '2 Conclusion',
    ]);
    expect(headings[5]).toBe('2 FAQ');
    // Medium is about 1,200 words: within ±15 %.
    const words = wordsOf(post.content);
    expect(words).toBeGreaterThanOrEqual(1020);
    expect(words).toBeLessThanOrEqual(1380);
    // One request per section and one for the FAQ's answers.
    expect(sectionRequests('plan alpha')).toHaveLength(6);
    expect((await u.c.get(`/api/results/${alpha.id}/plan`)).status).toBe(200);
    expect((await u.c.postJson(`/api/results/${alpha.id}/plan/replan`, {})).status).toBe(409);

    // Write the rest (all): beta; charged once each, nothing left held.
    expect((await u.c.postJson(`/api/jobs/${jobId}/write`, {})).status).toBe(200);
    await waitFor(jobId, 'completed', 2);
    expect(await statusCounts(getSql(), jobId)).toEqual({ completed: 2, canceled: 1 });
    expect(await available(getSql(), u.id)).toBe(before - 2 * each);
    expect(await openHolds(getSql(), u.id)).toBe(0);
    const done = (await (await u.c.get(`/api/jobs/${jobId}`)).json()) as { status: string };
    expect(done.status).toBe('completed');
  });

  it('the run page without JavaScript: move, add, save, drop and write by plain form posts', async () => {
    const u = await signedIn(20);
    const start = await u.c.postJson('/api/generate/text', { prompts: 'form one\nform two', model: TEXT, planFirst: true });
    const { jobId } = (await start.json()) as { jobId: string };
    await waitFor(jobId, 'planned', 2);
    const page = await u.c.get(`/app/runs/${jobId}`);
    const html = await page.text();
    expect(html).toContain('data-testid="plan-review"');
    expect(html).toContain('name="sections[5].heading"');
    const { plans } = (await (await u.c.get(`/api/jobs/${jobId}/plans`)).json()) as { plans: PlanView[] };
    const [one, two] = plans as [PlanView, PlanView];
    const fields = (p: PlanView, op: string) => {
      const f: Record<string, string> = { intent: 'plan', resultId: p.id, op, title: 'Form title', metaDescription: 'Meta' };
      p.plan.sections.forEach((s, i) => {
        f[`sections[${i}].level`] = String(s.level);
        f[`sections[${i}].heading`] = s.heading;
        f[`sections[${i}].intent`] = s.intent;
      });
      return f;
    };
    const moved = await u.c.postForm(`/app/runs/${jobId}`, fields(one, 'down:0'));
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe(`/app/runs/${jobId}#plan-${one.id}`);
    let stored = (await (await u.c.get(`/api/results/${one.id}/plan`)).json()) as PlanView;
    expect(stored.plan.title).toBe('Form title');
    expect(stored.plan.sections.slice(0, 2).map((s) => s.heading)).toEqual(['The short answer', 'Why it matters']);
    await u.c.postForm(`/app/runs/${jobId}`, fields(stored, 'add'));
    stored = (await (await u.c.get(`/api/results/${one.id}/plan`)).json()) as PlanView;
    expect(stored.plan.sections).toHaveLength(7);
    expect(stored.plan.sections[6]!.heading).toBe('New section');
    // A section without a heading is refused, nothing stored.
    const empty = { ...fields(stored, 'save'), 'sections[0].heading': ' ' };
    expect((await u.c.postForm(`/app/runs/${jobId}`, empty)).status).toBe(302);
    expect(((await (await u.c.get(`/api/results/${one.id}/plan`)).json()) as PlanView).plan.sections[0]!.heading).toBe('The short answer');
    expect((await u.c.postForm(`/app/runs/${jobId}`, { intent: 'plan', resultId: two.id, op: 'drop' })).status).toBe(302);
    expect((await u.c.postForm(`/app/runs/${jobId}`, { intent: 'plans-write', which: 'chosen', resultIds: one.id })).status).toBe(302);
    await waitFor(jobId, 'completed', 1);
    expect(sectionRequests('form one')).toHaveLength(7);
    expect(await openHolds(getSql(), u.id)).toBe(0);
    // Another user's form post changes nothing.
    const other = await signedIn(0);
    expect((await other.c.postForm(`/app/runs/${jobId}`, { intent: 'plan', resultId: two.id, op: 'replan' })).status).toBe(404);
  });

  it('a write that crashed between sections resumes with the missing sections only', async () => {
    const u = await signedIn(10);
    const start = await u.c.postJson('/api/generate/text', { prompts: 'plan resume', model: TEXT, planFirst: true, includeQA: false });
    const { jobId } = (await start.json()) as { jobId: string };
    await waitFor(jobId, 'planned', 1);
    const [{ id }] = (await (await u.c.get(`/api/jobs/${jobId}/plans`)).json()).plans as PlanView[];
    // What a worker that died after three answers left behind.
    for (const idx of [0, 2, 4]) {
      await getSql()`INSERT INTO generation_sections (result_id, attempt, idx, markdown) VALUES (${id}, 1, ${idx}, ${`stored part ${idx}`})`;
    }
    await u.c.postJson(`/api/jobs/${jobId}/write`, {});
    await waitFor(jobId, 'completed', 1);
    const asked = sectionRequests('plan resume').map((r) => r.messages.at(-1)!.content.match(/^Section: (.*)$/m)![1]);
    expect(asked.sort()).toEqual(['Common mistakes', 'Conclusion', 'The short answer']);
    const post = (await (await u.c.get(`/api/results/${id}`)).json()) as { content: string };
    expect(post.content).toContain('stored part 0');
    expect(post.content).toContain('stored part 4');
    expect(await openHolds(getSql(), u.id)).toBe(0);
  });

  it('ledger property: plans dropped, edited, re-planned, written and crashed mid-write are charged exactly once or released once', async () => {
    type Step = { t: 'drop' } | { t: 'edit' } | { t: 'replan' } | { t: 'write' } | { t: 'crashWrite'; stored: number[] } | { t: 'leave' };
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      fc.constant({ t: 'drop' as const }),
      fc.constant({ t: 'edit' as const }),
      fc.constant({ t: 'replan' as const }),
      fc.constant({ t: 'write' as const }),
      fc.record({ t: fc.constant('crashWrite' as const), stored: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { maxLength: 5 }) }),
      fc.constant({ t: 'leave' as const }),
    );
    let run = 0;
    const { verifyLedger } = await import('../../app/services/ledger-verify.server');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(stepArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), async (scripts) => {
        run++;
        const u = await signedIn(30);
        const before = await available(getSql(), u.id);
        const topics = scripts.map((_, i) => `prop ${run} ${i}`);
        const start = await u.c.postJson('/api/generate/text', {
          prompts: topics.join('\n'),
          model: TEXT,
          planFirst: true,
          includeQA: false,
        });
        const { jobId, credits } = (await start.json()) as { jobId: string; credits: number };
        const each = credits / topics.length;
        await waitFor(jobId, 'planned', topics.length);
        const { plans } = (await (await u.c.get(`/api/jobs/${jobId}/plans`)).json()) as { plans: PlanView[] };
        const final = new Map<string, 'planned' | 'canceled' | 'completed'>();
        const missing = new Map<string, number>();
        await Promise.all(
          plans.map(async (p, i) => {
            let state: 'planned' | 'canceled' | 'completed' = 'planned';
            for (const step of scripts[i]!) {
              const ended = state !== 'planned';
              switch (step.t) {
                case 'drop': {
                  const res = await u.c.request(`/api/results/${p.id}/plan`, { method: 'DELETE' });
                  expect(res.status).toBe(ended ? 409 : 200);
                  if (!ended) state = 'canceled';
                  break;
                }
                case 'edit': {
                  const res = await u.c.request(`/api/results/${p.id}/plan`, {
                    method: 'PUT',
                    headers: { 'content-type': 'application/json' },
                    body: JSON.stringify({ ...p.plan, title: `edited ${p.id}` }),
                  });
                  expect(res.status).toBe(ended ? 409 : 200);
                  break;
                }
                case 'replan': {
                  const res = await u.c.postJson(`/api/results/${p.id}/plan/replan`, {});
                  expect(res.status).toBe(ended ? 409 : 200);
                  if (!ended) {
                    for (let k = 0; k < 400; k++) {
                      if ((await getSql()`SELECT status FROM generation_results WHERE id = ${p.id}`)[0]!.status === 'planned') break;
                      await new Promise((r) => setTimeout(r, 25));
                    }
                  }
                  break;
                }
                case 'write':
                case 'crashWrite': {
                  if (!ended && step.t === 'crashWrite') {
                    // A worker that died mid-write left these sections (and a delivery) behind.
                    for (const idx of step.stored) {
                      await getSql()`INSERT INTO generation_sections (result_id, attempt, idx, markdown) VALUES (${p.id}, 1, ${idx}, ${`kept ${idx}`})`;
                    }
                    missing.set(p.id, 6 - step.stored.length);
                  } else if (!ended) missing.set(p.id, 6);
                  const res = await u.c.postJson(`/api/jobs/${jobId}/write`, { resultIds: [p.id] });
                  expect(res.status).toBe(200);
                  expect(((await res.json()) as { queued: number }).queued).toBe(ended ? 0 : 1);
                  if (!ended) state = 'completed';
                  break;
                }
                case 'leave':
                  break;
              }
            }
            final.set(p.id, state);
          }),
        );
        await waitFor(jobId, 'planned', 0);
        const rows = await getSql()<{ id: string; status: string; prompt: string }[]>`
          SELECT id, status, prompt FROM generation_results WHERE run_id = ${jobId}`;
        for (const r of rows) {
          expect(r.status).toBe(final.get(r.id));
          if (r.status === 'completed') expect(sectionRequests(r.prompt)).toHaveLength(missing.get(r.id)!);
        }
        const count = (state: string) => [...final.values()].filter((v) => v === state).length;
        // Held: the plans still waiting; charged: the posts written; dropped: given back.
        expect(await available(getSql(), u.id)).toBe(before - each * (count('planned') + count('completed')));
        expect(await openHolds(getSql(), u.id)).toBe(count('planned'));
        const settled = await getSql()<{ id: string; kind: string }[]>`
          SELECT x.id, e.kind FROM ledger_entries e
          JOIN ledger_entries r ON r.seq = e.pending_seq
          JOIN generation_results x ON r.idempotency_key LIKE '%' || x.id::text || '%'
          WHERE e.user_id = ${u.id} AND e.kind IN ('post', 'void') AND x.run_id = ${jobId}`;
        for (const [id, state] of final) {
          const kinds = settled.filter((e) => e.id === id).map((e) => e.kind);
          expect(kinds).toEqual(state === 'completed' ? ['post'] : state === 'canceled' ? ['void'] : []);
        }
        expect((await verifyLedger({ userId: u.id })).problems).toEqual([]);
      }),
      { numRuns: 8, seed: 20261127 },
    );
  }, 60_000);
});

const guideA = `<html><head><title>Basil</title><script>document.write('<h2>Scripted heading</h2>')</script></head>
<body><h1>Growing basil indoors</h1><h2 class="x">Soil &amp; light</h2><p>Text.</p><h3>Watering <em>weekly</em></h3><h4>Too deep a heading</h4></body></html>`;

/** Changes settings for the rest of a test (the env is read afresh by the app and the worker loop). */
function setEnv(vars: Record<string, string>) {
  Object.assign(process.env, vars);
  resetEnv();
}

type ResearchedPlan = { id: string; status: string; research: { status: string; sources: { url: string; title: string }[] } | null };

/** One plan-first topic planned through the API: its run, its plan and the plan request's user message. */
async function planResearched(u: Awaited<ReturnType<typeof signedIn>>, topic: string) {
  const start = await u.c.postJson('/api/generate/text', { prompts: topic, model: 'openai/gpt-4o-mini-search-preview', planFirst: true });
  expect(start.status).toBe(200);
  const { jobId } = (await start.json()) as { jobId: string };
  await waitFor(jobId, 'planned', 1);
  const { plans } = (await (await u.c.get(`/api/jobs/${jobId}/plans`)).json()) as { plans: ResearchedPlan[] };
  const asked = openai.requests.filter((r) => r.topic === topic && r.messages[0]!.content.includes('"sections"'));
  expect(asked).toHaveLength(1);
  return { jobId, plan: plans[0]!, prompt: asked[0]!.messages.at(-1)!.content };
}

describe('research for plans', () => {
  let search: SearchServer;
  let pages: PageServer;
  let trap: PageServer;
  let results: (q: string) => SearchHit[];

  beforeAll(async () => {
    // A host on another loopback address standing in for a private service: nothing may reach it.
    trap = await startPageServer({ '/secret': { html: '<h1>Internal admin</h1>' } }, '127.0.0.2');
    pages = await startPageServer({
      '/guide-a': { html: guideA },
      '/guide-b': { html: '<h1>Basil care</h1><h2>Pruning in spring</h2>' },
      '/hop': { location: `${trap.url}/secret` },
      // A search API that sends its callers on to a private host.
      '/searx/search': { location: `${trap.url}/secret` },
    });
    const base = new URL(pages.url);
    results = () => [
      { url: `${pages.url}/guide-a`, title: 'Guide A: growing basil', text: 'Everything about basil.' },
      // A result that carries credentials: the guard refuses to call it, so it is no source either.
      { url: `http://user:secret@${base.host}/with-credentials`, title: 'Credentials', text: '' },
      { url: `${pages.url}/guide-b`, title: 'Guide B [care]', text: 'Pruning and more.' },
    ];
    search = await startSearchServer({ braveToken: 'brave-test-token', results: (q) => results(q) });
    // The result pages live on loopback here; the guard's own test below turns this off.
    setEnv({ SEARXNG_URL: search.url, RESEARCH_RESULTS: '3', ALLOW_PRIVATE_HOSTS: 'true' });
  });

  afterAll(async () => {
    setEnv({ SEARXNG_URL: '', ALLOW_PRIVATE_HOSTS: '' });
    await Promise.all([search?.close(), pages?.close(), trap?.close()]);
  });

  it('SearXNG: the plan is made from the results and their headings, keeps them as sources, and the post cites them', async () => {
    const u = await signedIn(20);
    const { jobId, plan, prompt } = await planResearched(u, 'grow basil');
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
    const stored = (await (await u.c.get(`/api/results/${plan.id}/plan`)).json()) as ResearchedPlan & { plan: Record<string, unknown> };
    const put = await u.c.request(`/api/results/${plan.id}/plan`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...stored.plan, title: 'Basil, researched' }),
    });
    expect(((await put.json()) as ResearchedPlan).research?.sources).toHaveLength(2);
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
      const u = await signedIn(20);
      const before = pages.hits.length;
      const { plan, prompt } = await planResearched(u, 'guarded basil');
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
      // The search API's own host is trusted, not where it redirects.
      setEnv({ SEARXNG_URL: `${pages.url}/searx` });
      expect(await researchTopic('guarded basil')).toEqual({ status: 'failed', findings: [] });
      expect(pages.hits.at(-1)).toBe('/searx/search');
      expect(trap.hits).toEqual([]);
    } finally {
      setEnv({ ALLOW_PRIVATE_HOSTS: 'true', SEARXNG_URL: search.url });
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
      const u = await signedIn(20);
      const { jobId, plan, prompt } = await planResearched(u, 'unresearched basil');
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
