import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { workerPool, type WorkerPool } from '../../app/runtime/worker-pool.server';

// The pool behind the CSV parsing threads: bounded, first come first served, a thread that dies
// fails its own job only, idle threads end.

type Answer = { input: string; threadId: number };

// Echoes each message with its thread; 'die' ends the thread in the middle of its job.
const ECHO = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (input) => {
  if (input === 'die') process.exit(3);
  parentPort.postMessage({ input, threadId });
});`;

let pool: WorkerPool<string, Answer> | undefined;
afterEach(() => pool?.close());

function echoPool(size: number, idleMs = 60_000) {
  const started: number[] = [];
  pool = workerPool<string, Answer>({
    size,
    idleMs,
    start: () => {
      const worker = new Worker(ECHO, { eval: true });
      started.push(worker.threadId);
      return worker;
    },
  });
  return { pool, started };
}

describe('workerPool', () => {
  it('answers every job with its own answer on at most `size` threads', async () => {
    const { pool, started } = echoPool(2);
    const inputs = Array.from({ length: 10 }, (_, i) => `job ${i}`);
    const answers = await Promise.all(inputs.map((input) => pool.run(input)));
    expect(answers.map((a) => a.input)).toEqual(inputs);
    expect(started.length).toBeLessThanOrEqual(2);
    expect(new Set(answers.map((a) => a.threadId)).size).toBeLessThanOrEqual(2);
  });

  it('fails only the job whose thread died, and goes on with a new thread', async () => {
    const { pool, started } = echoPool(1);
    const [died, after] = await Promise.allSettled([pool.run('die'), pool.run('next')]);
    expect(died).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('exited (code 3)') } });
    expect(after).toMatchObject({ status: 'fulfilled', value: { input: 'next' } });
    expect(started).toHaveLength(2);
    expect((after as PromiseFulfilledResult<Answer>).value.threadId).toBe(started[1]);
  });

  it('ends a thread idle for idleMs and starts another when work comes', async () => {
    const { pool, started } = echoPool(1, 50);
    const first = await pool.run('a');
    await new Promise((r) => setTimeout(r, 300));
    const second = await pool.run('b');
    expect(started).toHaveLength(2);
    expect(second.threadId).not.toBe(first.threadId);
  });

  it('refuses what waits once closed', async () => {
    const { pool } = echoPool(1);
    const settled = Promise.allSettled([pool.run('a'), pool.run('b')]);
    await pool.close();
    expect((await settled).every((s) => s.status === 'rejected')).toBe(true);
  });
});
