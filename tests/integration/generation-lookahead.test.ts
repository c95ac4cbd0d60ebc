import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { available, createGenUser, openHolds, statusCounts, waitForRun } from '../support/generation';

// The worker's items next in line: a loop claims up to as many items again as it has
// provider slots, so a freed slot sends the next one without a database round trip. Those items
// are leased but not started: they count against their user's limit, a cancel ends them without
// their ever reaching the provider, and a stopping worker gives them back uncounted.

let openai: OpenAiServer;
type Services = {
  gen: typeof import('../../app/services/generation/start.server') &
    typeof import('../../app/services/generation/cancel.server') &
    typeof import('../../app/services/generation/progress.server');
  loop: typeof import('../../jobs/generation-loop');
  claim: typeof import('../../app/services/generation/claim.server');
  schema: typeof import('../../app/utils/generation-schema');
};
let s: Services;
let loop: Awaited<ReturnType<Services['loop']['startGenerationLoop']>> | undefined;

const TEXT = 'openai/gpt-4o-mini-search-preview';
const CONCURRENCY = 3;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 600 });
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    OPENROUTER_API_KEY: 'sk-operator',
    GENERATION_PROVIDER_TIMEOUT_SECONDS: '20',
  });
  s = {
    gen: {
      ...(await import('../../app/services/generation/start.server')),
      ...(await import('../../app/services/generation/cancel.server')),
      ...(await import('../../app/services/generation/progress.server')),
    },
    loop: await import('../../jobs/generation-loop'),
    claim: await import('../../app/services/generation/claim.server'),
    schema: await import('../../app/utils/generation-schema'),
  };
});

afterAll(async () => {
  await loop?.stop();
  await openai?.close();
});

async function startRun(label: string, n: number) {
  const u = await createGenUser(getSql(), { credits: n + 5, label });
  const before = await available(getSql(), u.id);
  const prompts = Array.from({ length: n }, (_, i) => `${label} topic ${i}`).join('\n');
  const run = await s.gen.startRun(u.id, s.schema.textGenerationSchema().parse({ prompts, model: TEXT }));
  return { u, before, run };
}

const requestsFor = (label: string) => openai.requests.filter((r) => r.topic.startsWith(`${label} topic`)).length;

async function leases(runId: string) {
  const [row] = await getSql()<{ leased: number; waiting: number; started: number }[]>`
    SELECT count(*) FILTER (WHERE lease_until > now())::int AS leased,
      count(*) FILTER (WHERE lease_until > now() AND started_at IS NULL)::int AS waiting,
      count(*) FILTER (WHERE lease_until > now() AND started_at IS NOT NULL)::int AS started
    FROM generation_results WHERE run_id = ${runId} AND status = 'processing'`;
  return row!;
}

async function until(what: () => Promise<boolean>, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('items next in line', () => {
  it('are claimed beyond the provider slots, never sent beyond them, and all complete', { timeout: 60_000 }, async () => {
    loop = await s.loop.startGenerationLoop({ concurrency: CONCURRENCY, perUser: 100, leaseSeconds: 30 });
    const max0 = openai.maxInFlight();
    const { u, before, run } = await startRun('ahead', 12);
    // Three at the provider, three more leased next in line (not started); a later claim records
    // the started ones.
    await until(async () => {
      const l = await leases(run.runId);
      return l.leased === 2 * CONCURRENCY && l.started === CONCURRENCY;
    });
    await waitForRun(getSql(), run.runId);
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 12 });
    expect(requestsFor('ahead')).toBe(12);
    expect(Math.max(max0, openai.maxInFlight())).toBeLessThanOrEqual(CONCURRENCY);
    expect(await available(getSql(), u.id)).toBe(before - 12);
    expect(await openHolds(getSql(), u.id)).toBe(0);
  });

  it('count against the per-user limit with the items at the provider', { timeout: 60_000 }, async () => {
    await loop!.stop();
    loop = await s.loop.startGenerationLoop({ concurrency: CONCURRENCY, perUser: 4, leaseSeconds: 30 });
    const { u, run } = await startRun('limit', 10);
    // Limit 4: three at the provider and one next in line, never a second one.
    await until(async () => {
      const l = await leases(run.runId);
      return l.started === CONCURRENCY && l.waiting === 1;
    });
    expect((await s.claim.claimItems(10, 4, 30)).filter((i) => i.userId === u.id)).toHaveLength(0);
    expect((await leases(run.runId)).leased).toBe(4);
    await waitForRun(getSql(), run.runId);
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 10 });
  });

  it(
    'a run started while slots and line are full has its first item sent at once, over the slots by one',
    { timeout: 60_000 },
    async () => {
      await loop!.stop();
      loop = await s.loop.startGenerationLoop({ concurrency: CONCURRENCY, perUser: 100, leaseSeconds: 30 });
      const early = await startRun('early', 8);
      await until(async () => {
        const l = await leases(early.run.runId);
        return l.started === CONCURRENCY && l.waiting === CONCURRENCY && requestsFor('early') === CONCURRENCY;
      });
      // The newcomer's start is claimed past the full line and its first item goes out before any
      // slot frees (the lane of a first item: one over the three slots), not after the line.
      const late = await startRun('late', 2);
      await waitForRun(getSql(), late.run.runId);
      const at = (topic: string) => openai.requests.find((r) => r.topic === topic)!.at;
      expect(at('late topic 0')).toBeLessThan(at('early topic 0') + 600);
      expect(at('late topic 1')).toBeGreaterThanOrEqual(at('early topic 0') + 600);
      expect(openai.maxInFlight()).toBe(CONCURRENCY + 1);
      await waitForRun(getSql(), early.run.runId);
      expect(await statusCounts(getSql(), early.run.runId)).toEqual({ completed: 8 });
    },
  );

  it('a cancel ends them and they never reach the provider; only the items sent are charged', { timeout: 60_000 }, async () => {
    await loop!.stop();
    loop = await s.loop.startGenerationLoop({ concurrency: CONCURRENCY, perUser: 100, leaseSeconds: 30 });
    const { u, before, run } = await startRun('cancel', 12);
    // Cancel while the first three are at the provider (recorded as started) and three more wait
    // next in line. Until a claim records them, the items sent also read as waiting.
    await until(async () => {
      const l = await leases(run.runId);
      return l.started === CONCURRENCY && l.waiting === CONCURRENCY && requestsFor('cancel') === CONCURRENCY;
    });
    const progress = await s.gen.cancelRun(u.id, run.runId);
    expect(progress.canceledPrompts).toBe(12 - CONCURRENCY);
    await waitForRun(getSql(), run.runId);
    await new Promise((r) => setTimeout(r, 1500)); // a withdrawn item would have gone out by now
    expect(requestsFor('cancel')).toBe(CONCURRENCY);
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: CONCURRENCY, canceled: 12 - CONCURRENCY });
    expect(await available(getSql(), u.id)).toBe(before - CONCURRENCY);
    expect(await openHolds(getSql(), u.id)).toBe(0);
  });

  it('a stopping worker gives them back without counting a delivery; the next worker does them', { timeout: 60_000 }, async () => {
    await loop!.stop();
    loop = await s.loop.startGenerationLoop({ concurrency: CONCURRENCY, perUser: 100, leaseSeconds: 30 });
    const { u, before, run } = await startRun('stop', 9);
    await until(async () => {
      const l = await leases(run.runId);
      return l.started === CONCURRENCY && l.waiting === CONCURRENCY && requestsFor('stop') === CONCURRENCY;
    });
    await loop.stop();
    loop = undefined;
    const rows = await getSql()<{ status: string; deliveries: number; leased: boolean }[]>`
      SELECT status, deliveries, lease_until > now() AS leased FROM generation_results WHERE run_id = ${run.runId}`;
    // The three at the provider finished; the three next in line were given back unstarted.
    expect(rows.filter((r) => r.status === 'completed')).toHaveLength(CONCURRENCY);
    expect(rows.filter((r) => r.status === 'processing' && r.leased)).toHaveLength(0);
    expect(rows.filter((r) => r.status === 'processing').every((r) => r.deliveries === 0)).toBe(true);
    loop = await s.loop.startGenerationLoop({ concurrency: CONCURRENCY, perUser: 100, leaseSeconds: 30 });
    await waitForRun(getSql(), run.runId);
    expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 9 });
    expect(requestsFor('stop')).toBe(9);
    expect(await available(getSql(), u.id)).toBe(before - 9);
    expect(await openHolds(getSql(), u.id)).toBe(0);
  });
});
