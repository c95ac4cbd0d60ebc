import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, transaction } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { available, createGenUser, openHolds } from '../support/generation';

// Credit holds of generation items against the ledger's sweeper: holds are reserved with
// their own expiry and renewed with the item's lease, so the sweeper never voids the hold of an
// item being worked on; a hold it did void (short expiries here) ends the item failed, uncharged.
// No loop runs here: the test claims and processes items itself, with a 1 s lease.

let openai: OpenAiServer;
type Services = {
  gen: typeof import('../../app/services/generation/start.server') &
    typeof import('../../app/services/generation/cancel.server') &
    typeof import('../../app/services/generation/progress.server');
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
const LEASE = 1; // seconds: the heartbeat renews lease and hold every ~333 ms

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 2500 });
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
  await openai?.close();
});

async function startOne(topic: string) {
  const u = await createGenUser(getSql(), { credits: 5 });
  const before = await available(getSql(), u.id);
  const run = await s.gen.startRun(u.id, s.schema.textGenerationSchema().parse({ prompts: topic, model: TEXT }));
  const key = s.ledger.holdKey(run.resultIds[0]!, 1);
  return { u, before, run, key };
}

/** Shortens the hold's expiry (as if reserved with a short one). */
async function expireIn(key: string, ms: number, db = getSql()) {
  await db`UPDATE ledger_open_holds SET expires_at = now() + make_interval(secs => ${ms / 1000}) WHERE item = ${key}`;
}

async function claimOne(userId: string) {
  const items = (await s.claim.claimItems(10, 10, LEASE)).filter((i) => i.userId === userId);
  expect(items).toHaveLength(1);
  return items[0]!;
}

async function resultOf(id: string) {
  const [row] = await getSql()<{ status: string; error: string | null; errorCode: string | null }[]>`
    SELECT status, error, error_code AS "errorCode" FROM generation_results WHERE id = ${id}`;
  return row!;
}

/** How a swept hold's item is stored: its code for the reader, its English text for operators. */
const holdGone = () => ({ status: 'failed', error: s.worker.HOLD_GONE.text, errorCode: 'hold_expired' });

async function entriesOf(key: string) {
  // reserve:{key}, post:{key} or void:{key} (a hold split over both buckets has a #2 twin).
  return getSql()<{ kind: string }[]>`SELECT kind FROM ledger_entries WHERE idempotency_key LIKE ${`%:${key}%`} ORDER BY seq`;
}

describe('generation holds and the sweeper', () => {
  it('reserves every hold with an expiry that covers queued work (not the ledger default)', async () => {
    const { u, key } = await startOne('expiry topic');
    const [row] = await getSql()<{ secs: number }[]>`
      SELECT extract(epoch FROM expires_at - now())::float8 AS secs FROM ledger_open_holds WHERE item = ${key}`;
    expect(row!.secs).toBeGreaterThan(24 * 3600 - 60);
    await s.gen.cancelItems(u.id, { all: true }, true);
  });

  it('the sweeper run again and again during a long-running item never voids its hold: the item completes and is charged once', async () => {
    const { u, before, run, key } = await startOne('long running topic');
    await expireIn(key, 600);
    const item = await claimOne(u.id);
    let done = false;
    const processing = s.worker.processItem(item).finally(() => (done = true));
    // The database is shared with other test files running meanwhile: the sweeper may void their
    // expired holds; what counts is that this item's hold is never voided (its entries, below).
    let sweeps = 0;
    while (!done) {
      await s.ledger.sweepExpiredHolds();
      sweeps++;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await processing).toBe('completed');
    expect(sweeps).toBeGreaterThan(0);
    expect((await resultOf(run.resultIds[0]!)).status).toBe('completed');
    const kinds = (await entriesOf(key)).map((e) => e.kind);
    expect(kinds).toContain('post');
    expect(kinds).not.toContain('void');
    expect(await openHolds(getSql(), u.id)).toBe(0);
    expect(await available(getSql(), u.id)).toBe(before - run.credits);
  });

  it('an item whose hold was swept while it was queued ends failed and is not charged', async () => {
    const { u, before, run, key } = await startOne('swept while queued');
    await expireIn(key, -1000);
    expect(await s.ledger.sweepExpiredHolds()).toBeGreaterThanOrEqual(1);
    const requests = openai.requests.length;
    const item = await claimOne(u.id);
    expect(await s.worker.processItem(item)).toBe('failed');
    const result = await resultOf(run.resultIds[0]!);
    expect(result).toEqual(holdGone());
    expect(openai.requests.length).toBe(requests); // the provider was never called
    expect(await available(getSql(), u.id)).toBe(before);
    expect(await openHolds(getSql(), u.id)).toBe(0);
  });

  it('an item whose hold is swept while it runs stops, ends failed and does not post', async () => {
    const { u, before, run, key } = await startOne('swept while running');
    const item = await claimOne(u.id);
    const processing = s.worker.processItem(item);
    await new Promise((r) => setTimeout(r, 100));
    // The sweeper finds the hold expired (as after a worker stalled past it) and voids it.
    await transaction(getSql(), async (tx) => {
      await expireIn(key, -1000, tx as never);
      expect(await s.ledger.sweepExpiredHolds({}, tx)).toBeGreaterThanOrEqual(1);
    });
    expect(await processing).toBe('failed');
    expect(await resultOf(run.resultIds[0]!)).toEqual(holdGone());
    const kinds = (await entriesOf(key)).map((e) => e.kind);
    expect(kinds).toContain('void');
    expect(kinds).not.toContain('post');
    expect(await available(getSql(), u.id)).toBe(before);
  });

  it('a hold swept between two heartbeats, just before the item finishes: it still does not post (no free result)', async () => {
    const { u, before, run, key } = await startOne('swept at the end');
    openai.setLatency(600);
    try {
      // A long lease: no heartbeat comes before the provider answers, finishing meets the void.
      const item = { ...(await claimOne(u.id)), leaseSeconds: 60 };
      const processing = s.worker.processItem(item);
      await new Promise((r) => setTimeout(r, 150));
      await transaction(getSql(), async (tx) => {
        await expireIn(key, -1000, tx as never);
        expect(await s.ledger.sweepExpiredHolds({}, tx)).toBeGreaterThanOrEqual(1);
      });
      expect(await processing).toBe('failed');
    } finally {
      openai.setLatency(2500);
    }
    expect(await resultOf(run.resultIds[0]!)).toEqual(holdGone());
    expect((await entriesOf(key)).map((e) => e.kind)).not.toContain('post');
    expect(await available(getSql(), u.id)).toBe(before);
  });
  it("a claim brings the item's row with its hold renewed; an item whose provider answered frees its user's slot", async () => {
    const u = await createGenUser(getSql(), { credits: 5 });
    const run = await s.gen.startRun(u.id, s.schema.textGenerationSchema().parse({ prompts: 'first of two\nsecond of two', model: TEXT }));
    const mine = async (answered: string[] = []) => (await s.claim.claimItems(10, 1, 60, answered)).filter((i) => i.userId === u.id);
    const [first, ...rest] = await mine();
    expect(rest).toHaveLength(0); // one item per user at a time (perUser 1)
    expect(first!.leased).toBe(true);
    expect(first!.row).toMatchObject({ id: run.resultIds[0], type: 'text', prompt: 'first of two', model: TEXT, held: true });
    const key = s.ledger.holdKey(run.resultIds[0]!, 1);
    const [hold] = await getSql()<{ secs: number }[]>`
      SELECT extract(epoch FROM expires_at - now())::float8 AS secs FROM ledger_open_holds WHERE item = ${key}`;
    expect(hold!.secs).toBeGreaterThan(50); // renewed to the lease (and never shortened)
    // The first still holds its lease: the user is at the limit...
    expect(await mine()).toHaveLength(0);
    // ...unless this process says its provider has answered (it is only being booked).
    const [second] = await mine([first!.resultId]);
    expect(second?.row?.prompt).toBe('second of two');
    await s.gen.cancelItems(u.id, { all: true }, true);
  });
});
