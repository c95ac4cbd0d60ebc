import crypto from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { connect, type Sql, type TransactionSql } from '../../db/client';
import { freshDatabase } from '../support/database';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { createGenUser } from '../support/generation';
import type { ClaimedItem } from '../../app/services/generation/item.server';

// Results under every order of start, cancel, retry, remove, clear and worker
// completion, on a few rows, with two real connections and real row locks. A race runs one
// operation's transaction to its last statement on connection A (not committed), starts the
// other on connection B, waits until B is blocked on a lock (pg_stat_activity) or done, then
// commits A. Invariants after each sequence: every hold is resolved at most once and an open hold
// belongs to a row still processing in that attempt (no hold outlives its row); every processing
// row has its hold open; charged items = items the worker completed; the ledger verifies.
// Runs on a database of its own: the test claims the queue's jobs itself.

type Services = {
  gen: typeof import('../../app/services/generation/start.server') &
    typeof import('../../app/services/generation/cancel.server') &
    typeof import('../../app/services/generation/progress.server');
  rules: typeof import('../../app/services/generation/rules.server');
  results: typeof import('../../app/services/results.server');
  retry: typeof import('../../app/services/generation/retry.server');
  worker: typeof import('../../app/services/generation/process.server') &
    typeof import('../../app/services/generation/outage.server') &
    typeof import('../../app/services/generation/finish.server');
  loop: typeof import('../../jobs/generation-loop');
  claim: typeof import('../../app/services/generation/claim.server');
  schema: typeof import('../../app/utils/generation-schema');
  verify: typeof import('../../app/services/ledger-verify.server');
  ledger: typeof import('../../app/services/ledger.server');
};
let s: Services;
let openai: OpenAiServer;
let url: string;
let observer: Sql;
let connA: Sql;
let connB: Sql;
const NAME_B = `races-b-${crypto.randomUUID().slice(0, 8)}`;
const TEXT = 'openai/gpt-4o-mini-search-preview';
const CREDITS = 60;

beforeAll(async () => {
  url = await freshDatabase(inject('clusterUrl'), 'pf_races');
  openai = await startOpenAiServer();
  // Before the app's pools and pg-boss open: they all take this database.
  Object.assign(process.env, { DATABASE_URL: url, OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator' });
  s = {
    gen: {
      ...(await import('../../app/services/generation/start.server')),
      ...(await import('../../app/services/generation/cancel.server')),
      ...(await import('../../app/services/generation/progress.server')),
    },
    rules: await import('../../app/services/generation/rules.server'),
    results: await import('../../app/services/results.server'),
    retry: await import('../../app/services/generation/retry.server'),
    worker: {
      ...(await import('../../app/services/generation/process.server')),
      ...(await import('../../app/services/generation/outage.server')),
      ...(await import('../../app/services/generation/finish.server')),
    },
    loop: await import('../../jobs/generation-loop'),
    claim: await import('../../app/services/generation/claim.server'),
    schema: await import('../../app/utils/generation-schema'),
    verify: await import('../../app/services/ledger-verify.server'),
    ledger: await import('../../app/services/ledger.server'),
  };
  observer = connect(url, 2, 'races-observer');
  connA = connect(url, 1, 'races-a');
  connB = connect(url, 1, NAME_B);
});

afterAll(async () => {
  await Promise.all([observer?.end(), connA?.end(), connB?.end()]);
  await openai?.close();
});

// ---------------------------------------------------------------------------------------------
// The operations

type Op =
  | { t: 'start'; n: number }
  | { t: 'cancel'; run: number }
  | { t: 'retry'; row: number }
  | { t: 'remove'; row: number }
  | { t: 'clear' }
  | { t: 'claim' }
  | { t: 'complete'; item: number; ok: boolean };

type Step = { t: 'solo'; op: Op } | { t: 'race'; first: Op; second: Op };

/** What a sequence has seen: the ids it can pick from, the items claimed, completions counted. */
type World = { userId: string; runs: string[]; rows: string[]; claimed: ClaimedItem[]; completed: number; log: string[] };

const pick = <T>(list: T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

/** Refusals the services answer with (404, 409, 402...) are outcomes, not failures. */
async function refusal<T>(p: Promise<T>): Promise<T | string> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof s.rules.GenerationError) return err.code;
    throw err;
  }
}

/** Runs one operation against db (a transaction), returning a short description of its outcome. */
async function apply(w: World, op: Op, db: TransactionSql): Promise<string> {
  switch (op.t) {
    case 'start': {
      const topics = Array.from({ length: op.n }, (_, i) => `race topic ${w.rows.length + i}`).join('\n');
      const run = await refusal(s.gen.startRun(w.userId, s.schema.textGenerationSchema().parse({ prompts: topics, model: TEXT }), db));
      if (typeof run === 'string') return run;
      w.runs.push(run.runId);
      w.rows.push(...run.resultIds);
      return `started ${run.total}`;
    }
    case 'cancel': {
      const runId = pick(w.runs, op.run);
      if (!runId) return 'no run';
      const r = await refusal(s.gen.cancelRun(w.userId, runId, db));
      return typeof r === 'string' ? r : 'canceled';
    }
    case 'retry': {
      const id = pick(w.rows, op.row);
      if (!id) return 'no row';
      const r = await refusal(s.retry.retryResult(w.userId, id, db));
      return typeof r === 'string' ? r : 'retried';
    }
    case 'remove': {
      const id = pick(w.rows, op.row);
      if (!id) return 'no row';
      const r = await refusal(s.results.deleteResult(w.userId, id, db));
      return typeof r === 'string' ? r : 'removed';
    }
    case 'clear': {
      const r = await refusal(s.results.clearResults(w.userId, db));
      return typeof r === 'string' ? r : `cleared ${r.deleted}`;
    }
    case 'claim': {
      // In the operation's transaction (so a claim blocked on a row lock is seen as connection B
      // waiting). Earlier sequences' items are in the same queue: this one keeps its own user's.
      const items = await s.claim.claimItems(50, 50, 600, [], [], {}, db as unknown as Sql);
      w.claimed.push(...items.filter((i) => i.leased && i.userId === w.userId));
      return `claimed ${items.length}`;
    }
    case 'complete': {
      const item = pick(w.claimed, op.item);
      if (!item) return 'nothing claimed';
      const outcome = op.ok
        ? await s.worker.processItem(item, { keyOf: async () => 'sk-test' }, db)
        : (await s.worker.finishFailed(item, { code: 'provider_refused', params: { status: 400 }, text: '400: The provider refused.' }, db))
          ? 'failed'
          : 'skipped';
      if (outcome === 'completed') w.completed++;
      return outcome;
    }
  }
}

/** Until connection B waits on a lock or its work settled (bounded: the machine may be slow). */
async function blockedOrDone(done: () => boolean): Promise<void> {
  const until = Date.now() + 30_000;
  while (!done()) {
    const [row] = await observer<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${NAME_B} AND wait_event_type = 'Lock'`;
    if (row!.n > 0) return;
    if (Date.now() > until) throw new Error('the second operation neither finished nor waited on a lock');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function run(w: World, step: Step): Promise<void> {
  if (process.env.RACES_DEBUG) process.stderr.write(`${JSON.stringify(step)}\n`);
  if (step.t === 'solo') {
    const out = await connA.begin((tx) => apply(w, step.op, tx as unknown as TransactionSql));
    w.log.push(`${JSON.stringify(step.op)} → ${out}`);
    return;
  }
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let firstReady!: () => void;
  const ready = new Promise<void>((r) => (firstReady = r));
  // A: every statement run, then it waits, holding its locks, until B is blocked or done.
  const first = connA
    .begin(async (tx) => {
      try {
        return await apply(w, step.first, tx as unknown as TransactionSql);
      } finally {
        firstReady();
        await gate;
      }
    })
    .then((out) => `${out}`);
  first.catch(() => {});
  await ready;
  let settled = false;
  const second = connB.begin((tx) => apply(w, step.second, tx as unknown as TransactionSql)).finally(() => (settled = true));
  second.catch(() => {});
  try {
    await blockedOrDone(() => settled);
  } finally {
    release();
  }
  const [a, b] = await Promise.all([first, second]);
  w.log.push(`race ${JSON.stringify(step.first)} → ${a} | ${JSON.stringify(step.second)} → ${b}`);
}

// ---------------------------------------------------------------------------------------------
// The invariants

async function check(w: World): Promise<void> {
  const db = observer;
  const context = `\n${w.log.join('\n')}`;
  // Every hold of this user, with its resolution (one row per item: a hold split over two buckets
  // has two reserve rows resolved together).
  const holds = await db<{ item: string; resolutions: string[]; open: boolean }[]>`
    SELECT h.external_ref AS item,
      array_remove(array_agg(DISTINCT r.kind), NULL) AS resolutions,
      bool_or(r.seq IS NULL) AS open
    FROM ledger_entries h LEFT JOIN ledger_entries r ON r.pending_seq = h.seq
    WHERE h.user_id = ${w.userId} AND h.kind = 'reserve'
    GROUP BY h.external_ref`;
  const rows = await db<{ id: string; status: string; attempt: number }[]>`
    SELECT id, status, attempt FROM generation_results WHERE user_id = ${w.userId}`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const h of holds) {
    const [, id, , attempt] = h.item.split(':');
    const row = byId.get(id!);
    // Resolved exactly once: never both posted and voided, never half of a split hold.
    expect(h.resolutions.length <= 1 && !(h.open && h.resolutions.length > 0), `${h.item} resolved ${h.resolutions}${context}`).toBe(true);
    if (h.open) {
      // No hold outlives its row (or its attempt).
      expect(row, `open hold ${h.item} of a deleted result${context}`).toBeDefined();
      expect(`${row!.status}:${row!.attempt}`, `open hold ${h.item}${context}`).toBe(`processing:${attempt}`);
    }
  }
  const holdOf = new Map(holds.map((h) => [h.item, h]));
  for (const r of rows) {
    const h = holdOf.get(s.ledger.holdKey(r.id, r.attempt));
    if (r.status === 'processing') expect(h?.open, `processing ${r.id} without an open hold${context}`).toBe(true);
    if (r.status === 'completed') expect(h?.resolutions, `completed ${r.id} not charged${context}`).toEqual(['post']);
    if (r.status === 'failed' || r.status === 'canceled')
      expect(h?.resolutions, `${r.status} ${r.id} charged or held${context}`).toEqual(['void']);
  }
  // Charged items = items the worker completed (deleted ones included).
  const posted = holds.filter((h) => h.resolutions[0] === 'post').length;
  expect(posted, `charged items vs completed${context}`).toBe(w.completed);
  const report = await s.verify.verifyLedger({ userId: w.userId }, db);
  expect(report.problems, context).toEqual([]);
}

// ---------------------------------------------------------------------------------------------

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ t: fc.constant('start' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), run: fc.nat(5) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('retry' as const), row: fc.nat(8) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('remove' as const), row: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('clear' as const) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('claim' as const) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('complete' as const), item: fc.nat(8), ok: fc.boolean() }) },
);

const stepArb: fc.Arbitrary<Step> = fc.oneof(fc.record({ t: fc.constant('solo' as const), op: opArb }), {
  weight: 2,
  arbitrary: fc.record({ t: fc.constant('race' as const), first: opArb, second: opArb }),
});

describe('results under racing operations', () => {
  it('a retry that loses the race to a delete reserves nothing; a delete after a retry voids its hold', async () => {
    for (const retryFirst of [true, false]) {
      const u = await createGenUser(observer, { credits: CREDITS });
      const w: World = { userId: u.id, runs: [], rows: [], claimed: [], completed: 0, log: [] };
      await run(w, { t: 'solo', op: { t: 'start', n: 1 } });
      await run(w, { t: 'solo', op: { t: 'claim' } });
      await run(w, { t: 'solo', op: { t: 'complete', item: 0, ok: false } });
      const retry: Op = { t: 'retry', row: 0 };
      const remove: Op = { t: 'remove', row: 0 };
      await run(w, retryFirst ? { t: 'race', first: retry, second: remove } : { t: 'race', first: remove, second: retry });
      // Retry first: it commits, then the delete voids its new hold. Delete first: the retry answers 404.
      expect(w.log.at(-1)).toMatch(retryFirst ? /retried.*removed$/ : /removed \| .*not_found$/);
      await check(w);
      const [open] = await observer<{ n: number }[]>`SELECT count(*)::int AS n FROM ledger_open_holds WHERE user_id = ${u.id}`;
      expect(open!.n).toBe(0);
    }
  });

  it('every hold is resolved once, charged items = completed items, no hold outlives its row', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 12 }), async (steps) => {
        const u = await createGenUser(observer, { credits: CREDITS });
        const w: World = { userId: u.id, runs: [], rows: [], claimed: [], completed: 0, log: [] };
        // Always something to work on first.
        await run(w, { t: 'solo', op: { t: 'start', n: 2 } });
        for (const step of steps) await run(w, step);
        await check(w);
      }),
      { numRuns: Number(process.env.RACES_RUNS ?? 60), ...(process.env.RACES_SEED ? { seed: Number(process.env.RACES_SEED) } : {}) },
    );
  }, 600_000);
});
