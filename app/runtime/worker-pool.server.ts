import type { Worker } from 'node:worker_threads';

// CPU-bound work off the event loop: a few worker threads take jobs one at a time, first come first
// served. However many requests ask at once, at most `size` threads exist; the others wait in line
// (their input is already in memory, so the line holds nothing new). Threads start on demand, end
// after `idleMs` without work, and never keep the process alive.

export type WorkerPoolOptions = {
  /** Most threads at once. */
  size: number;
  /** An idle thread ends after this long. */
  idleMs: number;
  /** Starts one thread: it answers each message it gets with exactly one message. */
  start: () => Worker;
};

export type WorkerPool<In, Out> = {
  /** Runs one job on the next free thread: its answer, or the thread's error if it died on it. */
  run: (input: In) => Promise<Out>;
  /** Ends every thread; jobs in flight or waiting are refused. */
  close: () => Promise<void>;
};

type Job<In, Out> = { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void };
type Thread<In, Out> = { worker: Worker; job?: Job<In, Out>; idle?: NodeJS.Timeout };

export function workerPool<In, Out>({ size, idleMs, start }: WorkerPoolOptions): WorkerPool<In, Out> {
  const threads = new Set<Thread<In, Out>>();
  const line: Job<In, Out>[] = [];

  // A thread that died (or was ended) is forgotten; its job, if any, fails, and the line goes on
  // with a new thread if it needs one.
  const retire = (thread: Thread<In, Out>, err: unknown) => {
    if (!threads.delete(thread)) return;
    clearTimeout(thread.idle);
    thread.job?.reject(err);
    thread.job = undefined;
    if (line.length) give(spawn());
  };

  const spawn = (): Thread<In, Out> => {
    const thread: Thread<In, Out> = { worker: start() };
    threads.add(thread);
    thread.worker.unref();
    thread.worker.on('message', (out: Out) => {
      const job = thread.job;
      if (!job) return;
      thread.job = undefined;
      job.resolve(out);
      give(thread);
    });
    thread.worker.on('error', (err) => retire(thread, err));
    thread.worker.on('exit', (code) => retire(thread, new Error(`worker thread exited (code ${code})`)));
    return thread;
  };

  // The next job in line to a free thread, or the thread's idle countdown when there is none.
  const give = (thread: Thread<In, Out>) => {
    clearTimeout(thread.idle);
    const job = line.shift();
    if (!job) {
      thread.idle = setTimeout(() => {
        retire(thread, new Error('idle'));
        void thread.worker.terminate();
      }, idleMs);
      thread.idle.unref();
      return;
    }
    try {
      thread.worker.postMessage(job.input);
      thread.job = job;
    } catch (err) {
      // An input that cannot be sent (not cloneable) fails alone; the thread stays free.
      job.reject(err);
      give(thread);
    }
  };

  return {
    run: (input) =>
      new Promise<Out>((resolve, reject) => {
        line.push({ input, resolve, reject });
        const free = [...threads].find((t) => !t.job);
        if (free) give(free);
        else if (threads.size < size) give(spawn());
      }),
    close: async () => {
      const closing = new Error('worker pool closed');
      for (const job of line.splice(0)) job.reject(closing);
      const ending = [...threads].map((t) => (retire(t, closing), t.worker.terminate()));
      await Promise.all(ending);
    },
  };
}
