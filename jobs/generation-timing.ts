// The generation loop's small tools of timing: a nap that a wake-up cuts short, turns for the CPU
// work of answered items, and the gate an item waits at for its slot.

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A nap that a wake-up (NOTIFY, an item's end, stop) cuts short; a wake-up during work skips the next nap. */
export class Alarm {
  private woken = false;
  private wakeUp: (() => void) | null = null;

  reset() {
    this.woken = false;
  }

  wake() {
    this.woken = true;
    this.wakeUp?.();
  }

  nap(ms: number, stopping: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.woken || stopping) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}

/**
 * Answered items' CPU work (conversion, booking) takes turns, one per event-loop iteration, so the
 * answers that land meanwhile are read, and their slots' next requests sent, in between. The turns
 * pause while the loop's claim is out (at most PAUSE_MAX_MS): a wave of answers' work would keep
 * this process, and on a small machine the claim's database process, off the CPU while the claim
 * holds the lock the other workers' claims wait for, and the claim's answer unread.
 */
export class CpuTurns {
  private turns: (() => void)[] = [];
  private scheduled = false;
  private paused = 0;

  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.turns.push(resolve);
      this.schedule();
    });
  }

  /** Holds the turns until the returned function is called, or PAUSE_MAX_MS passed. */
  pause(): () => void {
    this.paused++;
    let resumed = false;
    const resume = () => {
      if (resumed) return;
      resumed = true;
      clearTimeout(timer);
      this.paused--;
      this.schedule();
    };
    const timer = setTimeout(resume, PAUSE_MAX_MS);
    return resume;
  }

  private schedule() {
    if (this.scheduled || this.paused > 0 || this.turns.length === 0) return;
    this.scheduled = true;
    setImmediate(this.next);
  }

  private next = () => {
    this.scheduled = false;
    if (this.paused > 0) return;
    this.turns.shift()?.();
    this.schedule();
  };
}

/** The longest a claim holds the answered items' turns (a claim slowed by an outage must not hold the bookings). */
const PAUSE_MAX_MS = 100;

/** The promise an item's work waits on before calling its provider, with the hands that settle it. */
export function slotGate() {
  let grant!: () => void;
  let withdraw!: (err: Error) => void;
  const slot = new Promise<void>((resolve, reject) => ((grant = resolve), (withdraw = reject)));
  slot.catch(() => {});
  return { slot, grant, withdraw };
}
