import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { available, createGenUser, openHolds, statusCounts, waitForRun } from '../support/generation';

// A worker process killed with SIGKILL in the middle of a run loses nothing: after a new worker
// starts, every item ends completed or failed, no hold is left open, nothing is charged twice. The
// same for a post being written from its plan: killed with some sections stored, the next worker
// asks only for the sections missing, and the plan's held credits are charged once.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let openai: OpenAiServer;
const children: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/generation-worker-child.ts'], {
    cwd: root,
    env: {
      ...process.env,
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'sk-operator',
      GENERATION_CONCURRENCY: '10',
      GENERATION_CONCURRENCY_PER_USER: '10',
      GENERATION_LEASE_SECONDS: '5',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
  });
}

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 400 });
  process.env.OPENROUTER_BASE_URL = openai.url;
  process.env.OPENROUTER_API_KEY = 'sk-operator';
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await openai?.close();
});

describe('a worker killed mid-run', () => {
  it('SIGKILL, then a new worker: every item ends completed or failed, no hold left, nothing charged twice', async () => {
    const { startRun } = await import('../../app/services/generation/start.server');
    const { textGenerationSchema } = await import('../../app/utils/generation-schema');
    const { verifyLedger } = await import('../../app/services/ledger-verify.server');
    const u = await createGenUser(getSql(), { credits: 60 });
    const before = await available(getSql(), u.id);
    const first = await startWorker();
    const run = await startRun(
      u.id,
      textGenerationSchema().parse({
        prompts: Array.from({ length: 60 }, (_, i) => `crash topic ${i}`).join('\n'),
        model: 'openai/gpt-4o-mini-search-preview',
      }),
    );
    // Kill it while items are in flight.
    while (((await statusCounts(getSql(), run.runId)).completed ?? 0) < 12) await new Promise((r) => setTimeout(r, 50));
    const [{ leased }] =
      (await sql`SELECT count(*)::int AS leased FROM generation_results WHERE run_id = ${run.runId} AND lease_until > now()`) as unknown as [
        { leased: number },
      ];
    expect(leased).toBeGreaterThan(0);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const second = await startWorker();
    await waitForRun(getSql(), run.runId, 90_000);
    const counts = await statusCounts(getSql(), run.runId);
    expect((counts.completed ?? 0) + (counts.failed ?? 0)).toBe(60);
    expect(counts.completed).toBe(60);
    expect(await openHolds(getSql(), u.id)).toBe(0);
    const [entries] = (await sql`
      SELECT count(*) FILTER (WHERE kind = 'post')::int AS posts, count(*) FILTER (WHERE kind = 'void')::int AS voids
      FROM ledger_entries WHERE user_id = ${u.id}`) as unknown as [{ posts: number; voids: number }];
    expect(entries).toEqual({ posts: counts.completed, voids: counts.failed ?? 0 });
    expect(await available(getSql(), u.id)).toBe(before - counts.completed!);
    // Every item was asked at least once; those the killed worker had in flight (if any were still
    // waiting on the provider at the kill) were asked again, and none was charged twice (above).
    expect(openai.requests.length).toBeGreaterThanOrEqual(60);
    expect((await verifyLedger({ userId: u.id })).ok).toBe(true);
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }, 120_000);

  it('SIGKILL while a planned post is written, some sections stored: the next worker asks only for the missing ones, one charge', async () => {
    const { startRun } = await import('../../app/services/generation/start.server');
    const { writePlans } = await import('../../app/services/generation/plans.server');
    const { holdKey } = await import('../../app/services/ledger.server');
    const { textGenerationSchema } = await import('../../app/utils/generation-schema');
    const { verifyLedger } = await import('../../app/services/ledger-verify.server');
    const topic = 'crash plan topic';
    const headingOf = (r: (typeof openai.requests)[number]) => r.messages.at(-1)!.content.match(/^Section: (.*)$/m)?.[1];
    // The first worker's requests for these three sections never come back; the others answer at once.
    const late = new Set(['Common mistakes', 'Fixing them', 'Conclusion']);
    let killed = false;
    openai.setScript((r) => (!killed && late.has(headingOf(r) ?? '') ? { kind: 'hang' } : { kind: 'ok', latencyMs: 20 }));
    const u = await createGenUser(getSql(), { credits: 10 });
    const before = await available(getSql(), u.id);
    const [first, { startGenerationLoop }] = await Promise.all([startWorker(), import('../../jobs/generation-loop')]);
    const run = await startRun(
      u.id,
      textGenerationSchema().parse({ prompts: topic, model: 'openai/gpt-4o-mini-search-preview', planFirst: true, includeQA: false }),
    );
    const [{ id }] = (await sql`SELECT id FROM generation_results WHERE run_id = ${run.runId}`) as unknown as [{ id: string }];
    const stored = async () =>
      ((await sql`SELECT count(*)::int AS n FROM generation_sections WHERE result_id = ${id}`) as unknown as [{ n: number }])[0].n;
    while ((await statusCounts(getSql(), run.runId)).planned !== 1) await new Promise((r) => setTimeout(r, 50));
    expect(await writePlans(u.id, run.runId, null)).toBe(1);
    // Killed with three sections stored and three asked, the post not yet joined.
    const sections = () => openai.requests.filter((r) => r.topic === topic && headingOf(r));
    while ((await stored()) < 3 || sections().length < 6) await new Promise((r) => setTimeout(r, 25));
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    killed = true;
    expect(await stored()).toBe(3);
    expect((await statusCounts(getSql(), run.runId)).processing).toBe(1);

    // Another worker, started once the dead one's lease has run out (here in this process: it is
    // ready at once and its first round puts the abandoned item back).
    const leased = async () =>
      ((await sql`SELECT lease_until > now() AS on FROM generation_results WHERE id = ${id}`) as unknown as [{ on: boolean }])[0].on;
    while (await leased()) await new Promise((r) => setTimeout(r, 100));
    const second = await startGenerationLoop({ concurrency: 10, perUser: 10 });
    try {
      await waitForRun(getSql(), run.runId, 30_000);
    } finally {
      await second.stop();
    }
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 1 });
    const asks = new Map<string, number>();
    for (const r of sections()) asks.set(headingOf(r)!, (asks.get(headingOf(r)!) ?? 0) + 1);
    expect(Object.fromEntries(asks)).toEqual({
      'Why it matters': 1,
      'The short answer': 1,
      'Getting started': 1,
      'Common mistakes': 2,
      'Fixing them': 2,
      Conclusion: 2,
    });
    const [post] = (await sql`SELECT content FROM generation_results WHERE id = ${id}`) as unknown as [{ content: string }];
    // Joined in the plan's order, the sections of both workers.
    expect([...post.content.matchAll(/<h[23]>([^<]*)<\/h[23]>/g)].map((m) => m[1])).toEqual([...PLAN_ORDER]);
    // The plan's hold settled once, as a charge: nothing released, nothing charged twice.
    const settles = (await sql`
      SELECT s.kind FROM ledger_entries s JOIN ledger_entries h ON h.seq = s.pending_seq
      WHERE h.idempotency_key LIKE ${'%' + holdKey(id, 1) + '%'} AND s.kind IN ('post', 'void')`) as unknown as { kind: string }[];
    expect(settles.map((e) => e.kind)).toEqual(['post']);
    expect(await openHolds(getSql(), u.id)).toBe(0);
    expect(await available(getSql(), u.id)).toBe(before - run.credits);
    expect((await verifyLedger({ userId: u.id })).ok).toBe(true);
  }, 60_000);
});

/** The test server's default plan, in its order. */
const PLAN_ORDER = ['Why it matters', 'The short answer', 'Getting started', 'Common mistakes', 'Fixing them', 'Conclusion'];
