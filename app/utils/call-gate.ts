// A counting gate: at most `size` calls run at once, the others wait their turn in order. The
// generation loop gives one to the sections of the posts it writes, so all the sections in flight
// stay within the provider concurrency however many posts are being written.

export type CallGate = { run<T>(fn: () => Promise<T>): Promise<T>; readonly size: number };

export function callGate(size: number): CallGate {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    const next = queue.shift();
    if (next) {
      running++;
      next();
    }
  };
  return {
    size,
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (running < size) running++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
