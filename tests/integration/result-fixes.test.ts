import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type ChatRequest, type OpenAiServer } from '../support/openai-server';
import { available, signedInGenUser, waitForRun } from '../support/generation';
import { madeUpArticle, seoBlock, sentence } from '../support/quality-articles';
import type { TestApp, TestClient } from '../support/app-server';
import { seededRandom } from '../../app/utils/seeded-random';
import type { QualityReport } from '../../app/utils/quality/report';

// One-click fixes through the real app (run `npm run build` first) and the `result-fix` job, against
// the OpenAI test server: a short post expanded from its own text (the form without JavaScript, a
// double submit charged once), a missing FAQ added (the API), a fix whose provider call fails
// (nothing charged, the post unchanged), and another user's post refused.

let openai: OpenAiServer;
let app: TestApp;
let stopLoop: () => Promise<void>;
let stopBoss: () => Promise<void>;

const TEXT = 'openai/gpt-4o-mini-search-preview';
const SHORT = (topic: string, seed: number) => madeUpArticle(topic, { seed, words: 250 }) + seoBlock(topic);

/** New body sections of about `words` words, as a model continuing a post writes them. */
function continuation(words: number, seed: number): string {
  const rand = seededRandom(seed);
  const out: string[] = [];
  let count = 0;
  for (let part = 1; count < words; part++) {
    out.push(`## Going further, part ${part}`);
    const p = Array.from({ length: 5 }, () => sentence(rand, 20)).join(' ');
    count += p.split(/\s+/).length;
    out.push(p);
  }
  return out.join('\n\n');
}

const system = (r: ChatRequest) => r.messages.find((m) => m.role === 'system')?.content ?? '';
const user = (r: ChatRequest) => r.messages.find((m) => m.role === 'user')?.content ?? '';
const isContinuation = (r: ChatRequest) => system(r).startsWith('You are an expert blog writer. Continue the blog post');

beforeAll(async () => {
  openai = await startOpenAiServer({
    latencyMs: 5,
    script: (r) => {
      if (isContinuation(r)) {
        if (r.topic === 'failing tea') return { kind: 'status', status: 400, message: 'This model is not available' };
        return { kind: 'ok', content: continuation(Number(/about (\d+) more words/.exec(user(r))?.[1] ?? 300), r.attempt) };
      }
      if (system(r).includes('Write only the section asked for')) return undefined; // the server's own section answer
      if (r.topic === 'herbal tea')
        return { kind: 'ok', content: madeUpArticle('herbal tea', { seed: 5, sections: { faq: false } }) + seoBlock('herbal tea') };
      if (r.topic === 'short tea') return { kind: 'ok', content: SHORT('short tea', 3) };
      if (r.topic === 'failing tea') return { kind: 'ok', content: SHORT('failing tea', 4) };
      // Written short first; written again (the regenerate fix), at its full length.
      if (r.topic === 'regen tea')
        return {
          kind: 'ok',
          content: r.attempt === 1 ? SHORT('regen tea', 6) : madeUpArticle('regen tea', { seed: 7 }) + seoBlock('regen tea'),
        };
      return undefined;
    },
  });
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator', GENERATION_PROVIDER_ATTEMPTS: '1' });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
  stopLoop = (await (await import('../../jobs/generation-loop')).startGenerationLoop()).stop;
  const { startBoss } = await import('../../app/queue/boss');
  const { queues } = await import('../../app/queue/queues');
  const { handleResultFix } = await import('../../jobs/handlers/result-fix');
  const boss = await startBoss('worker');
  const worker = await boss.work('result-fix', { ...queues['result-fix'].work, pollingIntervalSeconds: 0.5 }, handleResultFix);
  stopBoss = () => boss.offWork({ id: worker });
});

afterAll(async () => {
  await stopBoss?.();
  await stopLoop?.();
  await app?.close();
  await openai?.close();
});

function signedIn(credits = 20) {
  return signedInGenUser(getSql(), app.url, { credits });
}

type Row = { id: string; content: string; quality: QualityReport; updatedAt: Date };

/** Generates the topics (one post each) and returns their rows by topic. */
async function posts(u: { c: TestClient }, prompts: string[]): Promise<Map<string, Row>> {
  const start = await u.c.postJson('/api/generate/text', { prompts: prompts.join('\n'), model: TEXT });
  expect(start.status).toBe(200);
  const { jobId } = (await start.json()) as { jobId: string };
  await waitForRun(getSql(), jobId);
  const rows = await sql<(Row & { prompt: string })[]>`
    SELECT id, prompt, content, quality, updated_at AS "updatedAt" FROM generation_results WHERE run_id = ${jobId} AND status = 'completed'`;
  return new Map(rows.map((r) => [r.prompt, r]));
}

async function fixesOf(resultId: string) {
  return sql<{ id: string; status: string; errorCode: string | null }[]>`
    SELECT id, status, error_code AS "errorCode" FROM result_fixes WHERE result_id = ${resultId} ORDER BY created_at`;
}

async function settled(resultId: string) {
  for (const until = Date.now() + 15_000; Date.now() < until;) {
    const fixes = await fixesOf(resultId);
    if (fixes.length && fixes.every((f) => f.status !== 'processing')) return fixes;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the fix of ${resultId} did not end`);
}

/** The ledger rows of a result's fixes: kind and amount, in order. */
async function fixEntries(userId: string, resultId: string) {
  return sql<{ kind: string; amount: number }[]>`
    SELECT kind, amount::int FROM ledger_entries WHERE user_id = ${userId} AND idempotency_key LIKE ${`%:result:${resultId}:fix:%`} ORDER BY seq`;
}

const check = (quality: QualityReport | null, id: string) => quality?.checks.find((c) => c.id === id);

describe('one-click fixes', () => {
  it('expands a short post from its own text (form without JavaScript, a double submit charged once)', async () => {
    const a = await signedIn();
    const short = (await posts(a, ['short tea'])).get('short tea')!;
    expect(check(short.quality, 'length')?.status).toBe('fail');

    // The Results tab offers the fix with its price; its confirm step, opened by the fix's link (the
    // way without JavaScript), says it again. The list itself builds no confirm step.
    const page = await (await a.c.get('/app?tab=results')).text();
    expect(page).toContain('Expand to the target length (1 credit)');
    expect(page).toContain('Regenerate the post (1 credit)');
    expect(page).not.toContain('Confirm: spend 1 credit');
    // A row's time names its zone once (the reader's: UTC for an account without one).
    expect(page).toMatch(/<time dateTime="[^"]+">[^<]+, \d+:\d\d [AP]M UTC<\/time>/);
    const link = page.match(/<a href="([^"]*)"[^>]*data-kind="expand"/)?.[1]?.replaceAll('&amp;', '&');
    expect(link).toContain(`fix=${short.id}%3Aexpand`);
    const confirm = await (await a.c.get(link!)).text();
    expect(confirm.match(/Confirm: spend 1 credit/g)).toHaveLength(1);
    expect(confirm).toMatch(new RegExp(`<details id="${short.id}-expand" open=""`));

    const before = await available(getSql(), a.id);
    const form = {
      intent: 'fix',
      id: short.id,
      kind: 'expand',
      basis: short.updatedAt.toISOString(),
      cost: '1',
      returnTo: '/app?tab=results',
    };
    const [first, second] = await Promise.all([a.c.postForm('/app/results', form), a.c.postForm('/app/results', form)]);
    expect([first.status, second.status]).toEqual([302, 302]);
    const [fix] = await settled(short.id);
    expect((await fixesOf(short.id)).map((f) => f.status)).toEqual(['completed']);

    // The continuation request carried the post's own text and asked for what comes next.
    const asked = openai.requests.filter((r) => r.topic === 'short tea' && isContinuation(r));
    expect(asked).toHaveLength(1);
    expect(user(asked[0]!)).toContain('This guide to short tea explains what matters.');
    expect(user(asked[0]!)).toContain('## Key takeaways');

    const [after] = await sql<Row[]>`SELECT content, quality, updated_at AS "updatedAt" FROM generation_results WHERE id = ${short.id}`;
    expect(after!.content.length).toBeGreaterThan(short.content.length * 1.5);
    expect(after!.content.startsWith(short.content.slice(0, 200))).toBe(true);
    // New body before the closing sections: the conclusion stays last.
    expect(after!.content.indexOf('Going further, part 1')).toBeLessThan(after!.content.indexOf('>Conclusion<'));
    expect(check(after!.quality, 'length')?.status).toBe('pass');
    expect(await fixEntries(a.id, short.id)).toEqual([
      { kind: 'reserve', amount: 1 },
      { kind: 'post', amount: 1 },
    ]);
    expect(await available(getSql(), a.id)).toBe(before - 1);

    // The same confirm sent again after the fix: the post changed since, so nothing is charged.
    expect((await a.c.postForm('/app/results', form)).status).toBe(302);
    expect(await fixesOf(short.id)).toEqual([fix]);
    expect(await available(getSql(), a.id)).toBe(before - 1);
    const api = (await (await a.c.get(`/api/results/${short.id}`)).json()) as { fix: { status: string; credits: number } };
    expect(api.fix).toMatchObject({ status: 'completed', credits: 1, kind: 'expand' });
  });

  it('adds a missing FAQ (API), charges nothing when the provider fails, and refuses what is not offered or not yours', async () => {
    const a = await signedIn();
    const b = await signedIn();
    const by = await posts(a, ['herbal tea', 'failing tea', 'regen tea']);
    const faq = by.get('herbal tea')!;
    const failing = by.get('failing tea')!;
    expect(check(faq.quality, 'sections')?.params.missing).toEqual(['faq']);

    // Another user's post: not found, nothing queued or held.
    expect((await b.c.postJson(`/api/results/${faq.id}/fix`, { kind: 'add_section', section: 'faq' })).status).toBe(404);
    // Not offered by the report: the post is long enough, and has its conclusion.
    expect((await a.c.postJson(`/api/results/${faq.id}/fix`, { kind: 'expand' })).status).toBe(409);
    expect((await a.c.postJson(`/api/results/${faq.id}/fix`, { kind: 'add_section', section: 'conclusion' })).status).toBe(409);
    expect(await fixesOf(faq.id)).toEqual([]);

    const before = await available(getSql(), a.id);
    const added = await a.c.postJson(`/api/results/${faq.id}/fix`, { kind: 'add_section', section: 'faq', cost: 1 });
    expect(added.status).toBe(202);
    expect(await added.json()).toMatchObject({ credits: 1, result: { id: faq.id, fix: { status: 'processing', section: 'faq' } } });
    const expand = await a.c.postJson(`/api/results/${failing.id}/fix`, { kind: 'expand' }, { 'Idempotency-Key': 'fix-failing-1' });
    expect(expand.status).toBe(202);
    // A retried request with its key queues nothing more.
    const replay = await a.c.postJson(`/api/results/${failing.id}/fix`, { kind: 'expand' }, { 'Idempotency-Key': 'fix-failing-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const regen = by.get('regen tea')!;
    // Approved as it was: the regenerated text is not what the owner approved.
    await sql`UPDATE generation_results SET approved_at = now() WHERE id = ${regen.id}`;
    expect((await a.c.postJson(`/api/results/${regen.id}/fix`, { kind: 'regenerate', basis: regen.updatedAt.toISOString() })).status).toBe(
      202,
    );

    await Promise.all([settled(faq.id), settled(failing.id), settled(regen.id)]);
    // Regenerated: a fresh post of the topic replaced the short one, charged as one post of its model.
    const [fresh] = await sql<
      (Row & { approvedAt: Date | null })[]
    >`SELECT content, quality, approved_at AS "approvedAt" FROM generation_results WHERE id = ${regen.id}`;
    expect(fresh!.content).not.toBe(regen.content);
    expect(fresh!.approvedAt).toBeNull();
    expect(check(regen.quality, 'length')?.status).toBe('fail');
    expect(check(fresh!.quality, 'length')?.status).toBe('pass');
    expect(await fixEntries(a.id, regen.id)).toEqual([
      { kind: 'reserve', amount: 1 },
      { kind: 'post', amount: 1 },
    ]);
    const [withFaq] = await sql<Row[]>`SELECT content, quality FROM generation_results WHERE id = ${faq.id}`;
    expect(check(withFaq!.quality, 'sections')?.status).toBe('pass');
    // The FAQ goes before the conclusion.
    expect(withFaq!.content.indexOf('<h2>FAQ</h2>')).toBeGreaterThan(0);
    expect(withFaq!.content.indexOf('<h2>FAQ</h2>')).toBeLessThan(withFaq!.content.indexOf('<h2>Conclusion</h2>'));
    expect(await fixEntries(a.id, faq.id)).toEqual([
      { kind: 'reserve', amount: 1 },
      { kind: 'post', amount: 1 },
    ]);

    // The failed fix: its hold voided, the post as it was, the reason on the result.
    expect((await fixesOf(failing.id)).map((f) => [f.status, f.errorCode])).toEqual([['failed', 'provider_refused']]);
    expect(await fixEntries(a.id, failing.id)).toEqual([
      { kind: 'reserve', amount: 1 },
      { kind: 'void', amount: 1 },
    ]);
    const [unchanged] = await sql<Row[]>`SELECT content, updated_at AS "updatedAt" FROM generation_results WHERE id = ${failing.id}`;
    expect(unchanged!.content).toBe(failing.content);
    expect(unchanged!.updatedAt.getTime()).toBe(failing.updatedAt.getTime());
    expect(await available(getSql(), a.id)).toBe(before - 2);
    const shown = (await (await a.c.get(`/api/results/${failing.id}`)).json()) as { fix: { error: string } };
    expect(shown.fix.error).toContain('refused the request');

    // The Results tab says so, in Chinese too.
    a.c.cookies.set('language', 'zh-HK');
    const zh = await (await a.c.get('/app?tab=results')).text();
    expect(zh).toContain('沒有收取任何點數');

    // A post deleted while its fix waits: the fix goes with it, and its job gives the hold back.
    expect((await a.c.postJson(`/api/results/${failing.id}/fix`, { kind: 'regenerate' })).status).toBe(202);
    expect((await a.c.request(`/api/results/${failing.id}`, { method: 'DELETE' })).status).toBe(200);
    await expect
      .poll(async () => (await fixEntries(a.id, failing.id)).map((e) => e.kind), { timeout: 10_000 })
      .toEqual(['reserve', 'void', 'reserve', 'void']);
    expect(await available(getSql(), a.id)).toBe(before - 2);
  });
});
