import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { TestClient, type TestApp } from '../support/app-server';
import { available, createGenUser, openHolds, statusCounts } from '../support/generation';

// Plan first, through the real app and the real worker loop against the OpenAI test server: plans
// made and held, edited, dropped, re-planned and written section by section (JSON API and the run
// page's forms without JavaScript), the post's length within ±15 % of the length asked, and a
// write that resumes after a crash asking only for the sections still missing; and the ledger's
// property over random sequences of plan steps: every post's credits held once, charged once when
// written, released once when dropped, never both, nothing left open but the plans still waiting.

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

async function signedIn(credits: number) {
  const u = await createGenUser(getSql(), { credits });
  const { createSession } = await import('../../app/services/sessions.server');
  const { setCookie } = await createSession(u.id);
  const c = new TestClient(app.url);
  const [pair] = setCookie.split(';');
  c.cookies.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
  return { ...u, c };
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
