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
 * answers that land meanwhile are read, and their slots' next requests sent, in between.
 */
export class CpuTurns {
  private turns: (() => void)[] = [];

  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.turns.push(resolve) === 1) setImmediate(this.next);
    });
  }

  private next = () => {
    this.turns.shift()?.();
    if (this.turns.length > 0) setImmediate(this.next);
  };
}

/** The promise an item's work waits on before calling its provider, with the hands that settle it. */
export function slotGate() {
  let grant!: () => void;
  let withdraw!: (err: Error) => void;
  const slot = new Promise<void>((resolve, reject) => ((grant = resolve), (withdraw = reject)));
  slot.catch(() => {});
  return { slot, grant, withdraw };
}
