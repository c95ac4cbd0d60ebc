import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, getSql, type Sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { available, createGenUser, openHolds } from '../support/generation';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';

// The database goes away under a generation item and comes back: the item is never failed for it.
// The worker's pool reaches Postgres through a proxy the test takes down and brings back; the
// test claims and processes items itself (no loop), as generation-holds does.

let openai: OpenAiServer;
let proxy: FaultProxy;
let viaProxy: Sql;
type Services = {
  gen: typeof import('../../app/services/generation/start.server');
  worker: typeof import('../../app/services/generation/process.server') &
    typeof import('../../app/services/generation/outage.server') &
    typeof import('../../app/services/generation/finish.server');
  loop: typeof import('../../jobs/generation-loop');
  claim: typeof import('../../app/services/generation/claim.server');
  ledger: typeof import('../../app/services/ledger.server');
  schema: typeof import('../../app/utils/generation-schema');
};
let s: Services;

const TEXT = 'openai/gpt-4o-mini-search-preview';
const LEASE = 5;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 800 });
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator' });
  proxy = await startFaultProxy(process.env.DATABASE_URL!);
  viaProxy = connect(proxy.url, 3, 'postforge-jobs');
  s = {
    gen: await import('../../app/services/generation/start.server'),
    worker: {
      ...(await import('../../app/services/generation/process.server')),
      ...(await import('../../app/services/generation/outage.server')),
      ...(await import('../../app/services/generation/finish.server')),
    },
    loop: await import('../../jobs/generation-loop'),
    claim: await import('../../app/services/generation/claim.server'),
    ledger: await import('../../app/services/ledger.server'),
    schema: await import('../../app/utils/generation-schema'),
  };
});

afterAll(async () => {
  await viaProxy?.end({ timeout: 1 });
  await proxy?.close();
  await openai?.close();
});

async function startOne(topic: string) {
  const u = await createGenUser(getSql(), { credits: 5 });
  const before = await available(getSql(), u.id);
  const run = await s.gen.startRun(u.id, s.schema.textGenerationSchema().parse({ prompts: topic, model: TEXT }));
  const items = (await s.claim.claimItems(10, 10, LEASE)).filter((i) => i.userId === u.id);
  expect(items).toHaveLength(1);
  return { u, before, run, item: items[0]!, key: s.ledger.holdKey(run.resultIds[0]!, 1) };
}

async function rowOf(id: string) {
  const [row] = await getSql()<{ status: string; error: string | null; deliveries: number; leaseOver: boolean }[]>`
    SELECT status, error, deliveries, lease_until <= now() AS "leaseOver" FROM generation_results WHERE id = ${id}`;
  return row!;
}

const after = (ms: number, fn: () => void) => setTimeout(fn, ms);

describe('a generation item while its database goes away', () => {
  it('gone while the provider works, back a moment later: the item is completed and charged once', async () => {
    const { u, before, run, item, key } = await startOne('outage while the provider works');
    // Down from before the provider answers (800 ms) until well after the driver's connect timeout
    // (5 s): the booking meets the outage.
    after(300, proxy.down);
    after(7000, proxy.up);
    expect(await s.worker.processItem(item, {}, viaProxy)).toBe('completed');
    expect(await rowOf(run.resultIds[0]!)).toMatchObject({ status: 'completed', error: null });
    const entries = await getSql()<{ kind: string }[]>`
      SELECT kind FROM ledger_entries WHERE idempotency_key LIKE ${`%:${key}%`} AND kind IN ('post', 'void')`;
    expect(entries.map((e) => e.kind)).toEqual(['post']);
    expect(await openHolds(getSql(), u.id)).toBe(0);
    expect(await available(getSql(), u.id)).toBe(before - run.credits);
  }, 30_000);

  it('gone before the provider is asked: the item is handed back, not failed (lease ended, hold kept, delivery not counted)', async () => {
    const { u, before, run, item } = await startOne('outage before the provider');
    const deliveries = (await rowOf(run.resultIds[0]!)).deliveries;
    const asked = openai.requests.length;
    proxy.down();
    after(1500, proxy.up);
    // The key lookup is the item's first query: it meets the outage.
    await expect(s.worker.processItem(item, {}, viaProxy)).rejects.toBeInstanceOf(s.worker.HandedBack);
    expect(openai.requests.length).toBe(asked);
    expect(await rowOf(run.resultIds[0]!)).toEqual({ status: 'processing', error: null, deliveries: deliveries - 1, leaseOver: true });
    expect(await openHolds(getSql(), u.id)).toBe(1);
    expect(await available(getSql(), u.id)).toBe(before - run.credits);
    // A worker's reaper puts the job back, and the next claim takes the item up again.
    // (Polled: on a loaded machine the ended lease can read as not yet past for a moment.)
    let revived = 0;
    for (let i = 0; i < 30 && revived === 0; i++) {
      revived = await s.claim.reviveAbandoned(getSql());
      if (revived === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(revived).toBeGreaterThanOrEqual(1);
    const again = (await s.claim.claimItems(10, 10, LEASE)).find((i) => i.resultId === run.resultIds[0]);
    expect(again?.leased).toBe(true);
    expect(await s.worker.processItem(again!, {}, getSql())).toBe('completed');
    expect(await openHolds(getSql(), u.id)).toBe(0);
  }, 30_000);
});
