import { claimSql, getJobSql, jobSql } from '../db/client';
import { getBoss } from '~/queue/boss';
import { CANCELED_SIGNAL, WAKE_CHANNEL } from '~/services/generation/rules.server';
import {
  claimItems,
  claimKeyLookup,
  type ClaimTiming,
  completeJobs,
  endLeases,
  releaseItems,
  reviveAbandoned,
  withdrawnItems,
} from '~/services/generation/claim.server';
import { processItem } from '~/services/generation/process.server';
import { linkWhenRunsEnd } from '~/services/internal-links.server';
import { HandedBack, isInfrastructureError } from '~/services/generation/outage.server';
import { SlotWithdrawn, WORKER_ID, WORKER_PREFIX, type ClaimedItem, type KeyLookup } from '~/services/generation/item.server';
import { env } from '~/runtime/env.server';
import { getLogger } from '~/runtime/logger.server';
import { singleton } from '~/runtime/singleton.server';
import { Alarm, CpuTurns, sleep, slotGate } from './generation-timing';
import { callGate, type CallGate } from '~/utils/call-gate';

// The generation worker of a process: a hand-written fetch/complete loop over the `generate-item`
// queue (pg-boss's work() sleeps a polling interval after every fetch; see TOOLING.md). It only
// schedules; what happens to an item is app/services/generation/ (its README tells the life).
// - GENERATION_CONCURRENCY items at the provider, and as many more claimed next in line: a slot
//   frees the moment the provider answers and goes to the next item at once, without a database
//   round trip; the claim that tops the line up runs while the providers work (slots freed
//   together are topped up by one claim). The answered item's conversion and booking wait until
//   its slot's next item has gone out, so new requests go out first.
// - GENERATION_CONCURRENCY_PER_USER per user across ALL processes, counting the items workers hold
//   (at the provider or next in line): the claim leases the result row, under one advisory lock,
//   so the count of live leases is exact (claim.server.ts). Jobs of a user at the cap are not fetched.
// - Cancel: an item next in line has not started (started_at is recorded by the next claim): a
//   cancel ends it and the worker drops it (NOTIFY CANCELED_SIGNAL).
// - Woken by NOTIFY (sent in the enqueuing transaction and when an item ends) and by a 1 s poll.
//   A NOTIFY of new jobs (a start, a retry) is claimed at once even when the line is full: a new
//   run's first item (the queue's highest priority) then takes the next free slot, instead of
//   waiting for the line to shrink and then for one more slot.
// - Fair: jobs are fetched by pg-boss priority (minus the item's position in its run), so runs
//   interleave and one user's single item is never behind another's thousand.
// - Crash-safe: a job whose item's lease expired (its worker was killed) is put back in the queue;
//   an item claimed more than MAX_DELIVERIES times ends failed and refunded.
// - Outage: an item the database failed is handed back (HandedBack): its job stays active for its
//   lease to bring it back once the database answers.

const POLL_MS = 1000;
const REAP_MS = 5000;
/** The longest an answered item waits for its slot's refill (by a claim) before its booking goes ahead. */
const GATE_MAX_MS = 1000;
/** How long a claim for a few free slots waits for more to free. */
const COALESCE_MS = 10;
/**
 * A run's first item (the queue's highest priority, as is a retried item) may go to its provider
 * while every slot is taken, up to this share of GENERATION_CONCURRENCY more (at least one): slots
 * filled together free together, a provider's latency later, and a user who starts just after
 * must not wait that long for anything to happen.
 */
const FIRST_ITEM_LANE = 0.1;
/** The queue priority of a run's first item (start.server.ts: minus the item's position). */
const FIRST_PRIORITY = 0;
/** At most this many items a claim takes past a full line after NOTIFYs of new jobs (one per NOTIFY). */
const NEWCOMERS_MAX = 10;
/** How long a stopping loop lets the items in flight finish before leaving them to their lease. */
const STOP_GRACE_MS = 5000;
/**
 * How long ended items gather before their jobs are marked done and their runs' linking checked:
 * one statement each for the batch instead of one per item (items end many a second).
 */
const BATCH_MS = 200;

export type GenerationLoop = {
  /** Items this process holds now (at the provider, next in line, being booked). */
  inFlight: () => number;
  wake: () => void;
  stop: () => Promise<void>;
};

// One loop per process (server.ts and the Remix build are two module graphs).
const holder = singleton<{ loop?: GenerationLoop }>('generation-loop', () => ({}));

type LoopOptions = { concurrency?: number; perUser?: number; leaseSeconds?: number };

/** A claimed item kept next in line until a slot is granted (or it is withdrawn). */
type Waiting = {
  resultId: string;
  attempt: number;
  priority: number;
  grant: () => void;
  withdraw: (err: Error) => void;
  task: Promise<void>;
};

// A slot is taken while the provider works on an item. Each claim also takes up to `concurrency`
// items more, kept `waiting` next in line (leased, their keys looked up): a slot that frees when
// its provider answers goes to the next waiting item at once, and the claim that replaces it runs
// while the providers work. The answered item moves to `booking` (its result and hold are being
// written); its CPU work waits until its slot's next item has gone out, so new requests leave
// first when many answers land together.
class Loop {
  private readonly logger = getLogger();
  private readonly alarm = new Alarm();
  private readonly cpu = new CpuTurns();
  private stopping = false;
  /** Items at their provider, by job id. */
  private readonly slots = new Map<string, Promise<void>>();
  /** Of the slots, the first items sent over GENERATION_CONCURRENCY (FIRST_ITEM_LANE). */
  private readonly lane = new Set<string>();
  private readonly laneSize: number;
  private readonly waiting = new Map<string, Waiting>();
  private readonly booking = new Map<string, { resultId: string; task: Promise<void> }>();
  /** Items sent to their provider since the last claim (the claim records it: started_at). */
  private started: string[] = [];
  /** Jobs given back on stop: left active, for their lease to expire and another worker to revive. */
  private readonly released = new Set<string>();
  /** Jobs done, to be marked so in pg-boss (in batches). */
  private readonly done: string[] = [];
  private flushing: Promise<void> | null = null;
  /** Items whose end was committed, for their runs' linking check (in batches). */
  private readonly ended: { userId: string; resultId: string }[] = [];
  private linking: Promise<void> | null = null;
  private checkWithdrawn = false;
  /** NOTIFYs of new jobs since the last claim: each may bring a run's first item, to be claimed past a full line. */
  private newJobs = 0;
  private answeredSeq = 0;
  private refillWaiters: { seq: number; resolve: () => void }[] = [];
  private lastReap = 0;
  private running: Promise<void> = Promise.resolve();
  private unlisten: () => Promise<void> = async () => {};
  /** The sections of posts written from a plan share the provider concurrency of the process. */
  private readonly calls: CallGate;

  constructor(
    private readonly concurrency: number,
    private readonly perUser: number,
    private readonly leaseSeconds: number,
  ) {
    this.calls = callGate(concurrency);
    this.laneSize = Math.max(1, Math.floor(concurrency * FIRST_ITEM_LANE));
  }

  /** Listens for wake-ups and starts the rounds. */
  async start(): Promise<void> {
    await getBoss();
    const listener = await getJobSql().listen(WAKE_CHANNEL, (payload) => this.onNotify(payload));
    this.unlisten = () => listener.unlisten();
    this.running = this.rounds();
  }

  readonly handle: GenerationLoop = {
    inFlight: () => this.slots.size + this.waiting.size + this.booking.size,
    wake: () => this.alarm.wake(),
    stop: () => this.stop(),
  };

  private onNotify(payload: string) {
    if (payload === CANCELED_SIGNAL) this.checkWithdrawn = true;
    // An item's end names its worker (a slot freed there); anything else but a cancel is new jobs.
    else if (!payload.startsWith(WORKER_PREFIX)) this.newJobs++;
    if (payload !== WORKER_ID) this.alarm.wake();
  }

  // ---------------------------------------------------------------------------------------------
  // Rounds: revive, drop withdrawn items, claim; then a nap unless the claim was full.

  private async rounds(): Promise<void> {
    while (!this.stopping) {
      this.alarm.reset();
      await this.coalesce();
      const seen = this.answeredSeq;
      let full = false;
      try {
        await this.reapNow();
        if (this.checkWithdrawn) await this.dropWithdrawn();
        full = await this.claimRound();
      } catch (err) {
        // While the database is away this fails once a poll: a warning, the outage is no bug.
        if (!this.stopping) this.logger[isInfrastructureError(err) ? 'warn' : 'error']({ err: String(err) }, 'generation: claim failed');
      } finally {
        this.refilled(seen);
      }
      if (!full) await this.alarm.nap(POLL_MS, this.stopping);
    }
  }

  /**
   * Answers land together (runs start together): when only a few are missing, give the others a
   * moment to free theirs, so that one claim serves them all.
   */
  private async coalesce(): Promise<void> {
    if (2 * this.concurrency - this.slots.size - this.waiting.size < this.concurrency / 2) await sleep(COALESCE_MS);
  }

  /** Every REAP_MS, puts back the jobs of items whose worker died. */
  private async reapNow(): Promise<void> {
    if (Date.now() - this.lastReap <= REAP_MS) return;
    this.lastReap = Date.now();
    const revived = await reviveAbandoned();
    if (revived > 0) this.logger.warn({ revived }, 'generation: abandoned items put back in the queue');
  }

  /**
   * How many items to claim: empty slots first (their requests go out sooner), then the line;
   * bookings are quick, but never let them pile up beyond another round of slots.
   */
  private wanted(): number {
    const held = this.slots.size + this.waiting.size;
    const target = 2 * this.concurrency; // at the provider and next in line
    const empty = this.concurrency - held;
    const room = target + this.concurrency - held - this.booking.size;
    // New jobs come first in the queue (a run's first items): one item per NOTIFY, past a full line
    // and past bookings piled up behind a busy CPU.
    const newcomers = Math.min(this.newJobs, NEWCOMERS_MAX);
    return Math.max(Math.min(empty > 0 ? empty : target - held, room), newcomers);
  }

  /** Claims what is wanted (and reports the items started since); true when the claim was full. */
  private async claimRound(): Promise<boolean> {
    const want = this.wanted();
    if (want <= 0 && this.started.length === 0) return false;
    const answered = [...this.booking.values()].map((b) => b.resultId);
    const report = this.started;
    this.started = [];
    this.newJobs = 0;
    const t0 = performance.now();
    const timing: ClaimTiming = {};
    // The answered items' CPU work waits while the claim is out (CpuTurns.pause), and until its
    // items have gone to the free slots.
    const resume = this.cpu.pause();
    try {
      const items = await claimItems(want, this.perUser, this.leaseSeconds, answered, report, timing, claimSql).catch((err) => {
        this.started.push(...report);
        throw err;
      });
      // Each claim's time as the worker sees it (the lock's wait, the query), and of it the
      // statement's round trip from its sending, in its parts: what `bench:generation`'s queue part
      // reads for the claim's percentiles (LOG_LEVEL=debug).
      // Built only when written: a claim runs every few items.
      if (this.logger.isLevelEnabled('debug')) {
        const ms = (x: number | undefined) => Math.round((x ?? NaN) * 100) / 100;
        const { queryMs, waitMs, lockMs, workMs, readMs } = timing;
        const parts = { queryMs: ms(queryMs), waitMs: ms(waitMs), lockMs: ms(lockMs), workMs: ms(workMs), readMs: ms(readMs) };
        this.logger.debug({ claimMs: ms(performance.now() - t0), ...parts, want, got: items.length }, 'generation: claim');
      }
      const keyOf = claimKeyLookup(); // one key lookup per user and provider for the batch
      for (const item of items) this.run(item, keyOf);
      this.grantSlots();
      return want > 0 && items.length === want;
    } finally {
      resume();
    }
  }

  /** Waiting items whose run was canceled are dropped (their rows are already canceled and refunded). */
  private async dropWithdrawn(): Promise<void> {
    this.checkWithdrawn = false;
    const list = [...this.waiting.values()];
    if (list.length === 0) return;
    const gone = await withdrawnItems(list);
    for (const [jobId, w] of this.waiting) {
      if (!gone.has(w.resultId)) continue;
      this.waiting.delete(jobId);
      w.withdraw(new SlotWithdrawn());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Slots: an item waits next in line, goes to its provider, is booked.

  /**
   * Free slots go to waiting items by their job's priority, then in claim order: a user who starts
   * while the line is full of other runs' later items has their first item sent next, not after
   * the line (which takes a provider's whole latency to drain); with every slot taken, a first item
   * goes over them through the lane. Returns how many went.
   */
  private grantSlots(): number {
    if (this.stopping || this.waiting.size === 0) return 0;
    let granted = 0;
    // A stable sort: equal priorities keep their claim order.
    const next = [...this.waiting].sort((a, b) => b[1].priority - a[1].priority);
    for (const [jobId, w] of next) {
      if (this.stopping) break;
      if (this.slots.size - this.lane.size >= this.concurrency) {
        if (w.priority < FIRST_PRIORITY || this.lane.size >= this.laneSize) break;
        this.lane.add(jobId);
      }
      this.waiting.delete(jobId);
      this.slots.set(jobId, w.task);
      this.started.push(w.resultId);
      w.grant();
      granted++;
    }
    return granted;
  }

  /** Starts a claimed item's work; a leased one waits next in line for a slot. */
  private run(item: ClaimedItem, keyOf: KeyLookup): void {
    const { slot, grant, withdraw } = slotGate();
    let answered = false;
    const onAnswered = () => {
      if (answered) return;
      answered = true;
      return this.onAnswered(item, task);
    };
    const task: Promise<void> = this.work(item, { keyOf, onAnswered, slot: () => slot, calls: this.calls });
    // Next in line until a slot is granted (processItem waits for it past its first await).
    if (item.leased)
      this.waiting.set(item.jobId, { resultId: item.resultId, attempt: item.attempt, priority: item.priority ?? 0, grant, withdraw, task });
  }

  /**
   * The provider answered: the item is being booked and its slot goes to the next item. Its CPU work
   * waits for that item's request to go out, else for the claim that refills the line (at most
   * GATE_MAX_MS).
   */
  private onAnswered(item: ClaimedItem, task: Promise<void>): Promise<void> | undefined {
    this.booking.set(item.jobId, { resultId: item.resultId, task });
    this.waiting.delete(item.jobId);
    // A first item sent over the slots frees no slot: nothing waits for its refill.
    const overSlots = this.lane.delete(item.jobId);
    const hadSlot = this.slots.delete(item.jobId);
    this.alarm.wake();
    if (this.stopping) return;
    if (hadSlot && (this.grantSlots() > 0 || overSlots)) return this.cpu.take();
    const seq = ++this.answeredSeq;
    const gate = new Promise<void>((resolve) => this.refillWaiters.push({ seq, resolve }));
    return Promise.race([gate, sleep(GATE_MAX_MS)]).then(() => this.cpu.take());
  }

  /** Answered items waiting for a refill up to round `upTo` may go on. */
  private refilled(upTo: number): void {
    const ready = this.refillWaiters.filter((w) => w.seq <= upTo);
    this.refillWaiters = this.refillWaiters.filter((w) => w.seq > upTo);
    for (const w of ready) w.resolve();
  }

  /** The item's processing, then its job marked done (unless given back) and its slot freed. */
  private async work(item: ClaimedItem, opts: Parameters<typeof processItem>[1]): Promise<void> {
    try {
      await processItem(item, { ...opts, ended: (i) => this.itemEnded(i) }, jobSql);
      if (!this.released.has(item.jobId)) this.done.push(item.jobId);
    } catch (err) {
      // The job stays active: the item's lease (ended by a hand-back, or running out) brings it
      // back to a worker. A hand-back is the database's doing and was logged as such.
      if (!(err instanceof HandedBack)) this.logger.error({ err, resultId: item.resultId }, 'generation: item could not be booked');
    } finally {
      this.waiting.delete(item.jobId);
      this.lane.delete(item.jobId);
      if (this.slots.delete(item.jobId)) this.grantSlots();
      this.booking.delete(item.jobId);
      this.released.delete(item.jobId);
      // Once stopping, stop() flushes what ended in time; an item that ends after it (its answer
      // came late) is left to be revived and found done, rather than restarting pg-boss.
      if (!this.stopping) this.flushing ??= this.flush().finally(() => (this.flushing = null));
      this.alarm.wake();
    }
  }

  /** An item's end was committed: its run's linking is checked with the batch. */
  private itemEnded(item: ClaimedItem): void {
    this.ended.push({ userId: item.userId, resultId: item.resultId });
    this.linking ??= this.linkEnded().finally(() => (this.linking = null));
  }

  /** The runs of the items that ended get their linking job when they are over (one check a batch). */
  private async linkEnded(): Promise<void> {
    while (this.ended.length) {
      if (!this.stopping) await sleep(BATCH_MS);
      const batch = this.ended.splice(0, this.ended.length);
      // The items are booked whatever happens here; a failure only leaves the run for the user to link.
      await linkWhenRunsEnd(batch, jobSql).catch((err) =>
        this.logger.warn({ err: String(err), items: batch.length }, 'generation: runs could not be queued for linking'),
      );
    }
  }

  /** Marks the done jobs so in pg-boss (in batches); while it fails they are kept and tried again. */
  private async flush(): Promise<void> {
    while (this.done.length) {
      if (!this.stopping) await sleep(BATCH_MS);
      const ids = this.done.splice(0, this.done.length);
      const failed = await completeJobs(ids).then(
        () => false,
        (err) => (
          this.logger.warn({ err: String(err), jobs: ids.length }, 'generation: jobs could not be marked done; trying again'),
          true
        ),
      );
      if (failed) {
        // Their items are booked; only pg-boss's record is behind. Kept for the next flush.
        this.done.unshift(...ids);
        if (this.stopping) return;
        await sleep(POLL_MS);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Stop: the line given back at once, items in flight a moment to finish, the rest to their lease.

  private async stop(): Promise<void> {
    this.stopping = true;
    this.alarm.wake();
    await this.running;
    this.refilled(Infinity);
    await this.giveBackWaiting();
    await this.letInFlightFinish();
    await (this.flushing ?? Promise.resolve());
    await this.flush();
    await (this.linking ?? Promise.resolve());
    await this.linkEnded();
    await this.unlisten().catch(() => {});
    if (holder.loop === this.handle) holder.loop = undefined;
  }

  /** Items next in line never reached their provider: given back at once. */
  private async giveBackWaiting(): Promise<void> {
    const next = [...this.waiting.entries()];
    this.waiting.clear();
    for (const [jobId, w] of next) {
      this.released.add(jobId);
      w.withdraw(new SlotWithdrawn());
    }
    if (next.length > 0) await releaseItems(next.map(([, w]) => w.resultId)).catch(() => {});
  }

  /** Items in flight get a moment to finish; the rest are left to their lease (revived elsewhere). */
  private async letInFlightFinish(): Promise<void> {
    await Promise.race([
      Promise.allSettled([...this.slots.values(), ...[...this.booking.values()].map((b) => b.task)]),
      sleep(STOP_GRACE_MS),
    ]);
    if (this.slots.size + this.booking.size > 0) {
      await endLeases([...this.slots.keys(), ...this.booking.keys()]).catch(() => {});
    }
  }
}

/** Starts this process's loop (once per process). */
export async function startGenerationLoop(opts: LoopOptions = {}): Promise<GenerationLoop> {
  if (holder.loop) return holder.loop;
  const loop = new Loop(
    opts.concurrency ?? env.GENERATION_CONCURRENCY,
    opts.perUser ?? env.GENERATION_CONCURRENCY_PER_USER,
    opts.leaseSeconds ?? env.GENERATION_LEASE_SECONDS,
  );
  await loop.start();
  holder.loop = loop.handle;
  return loop.handle;
}

/** Stops this process's loop if one runs (graceful shutdown). */
export async function stopGenerationLoop(): Promise<void> {
  await holder.loop?.stop();
}
