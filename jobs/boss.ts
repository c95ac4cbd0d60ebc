import PgBoss from 'pg-boss';
import type { TransactionSql } from '../db/client';
import { queues, type QueueName, type QueuePayload } from './queues';

// One pg-boss per process, shared by server.ts and the Remix build through globalThis.
const holder = globalThis as unknown as { __postforgeBoss?: Promise<PgBoss> };

export type BossMode = 'web' | 'worker';

/** Starts pg-boss: web processes only enqueue; workers also supervise and run schedules. */
export function startBoss(mode: BossMode = 'web'): Promise<PgBoss> {
  holder.__postforgeBoss ??= (async () => {
    const boss = new PgBoss({
      connectionString: process.env.DATABASE_URL,
      schema: 'pgboss',
      max: 4,
      supervise: mode === 'worker',
      schedule: mode === 'worker',
      migrate: true,
    });
    boss.on('error', (err) => console.error('[pg-boss]', err.message));
    await boss.start();
    for (const [name, q] of Object.entries(queues)) {
      await boss.createQueue(name, { name, ...q.options });
    }
    return boss;
  })();
  return holder.__postforgeBoss;
}

export function getBoss(): Promise<PgBoss> {
  return startBoss('web');
}

export async function stopBoss(): Promise<void> {
  const pending = holder.__postforgeBoss;
  holder.__postforgeBoss = undefined;
  if (pending) await (await pending).stop({ graceful: true, wait: true, timeout: 10_000 });
}

/** pg-boss's Db adapter over a postgres.js transaction, so a job commits or rolls back with it. */
export function inTransaction(tx: TransactionSql): PgBoss.Db {
  return {
    executeSql: async (text, values) => ({ rows: await tx.unsafe(text, values as never[]) }),
  };
}

export type EnqueueOptions = { tx?: TransactionSql; singletonKey?: string; startAfter?: Date | number };

/** Validates the payload against its queue and sends it, inside tx when one is given. */
export async function enqueue<Q extends QueueName>(
  name: Q,
  payload: QueuePayload<Q>,
  opts: EnqueueOptions = {},
): Promise<string | null> {
  const data = queues[name].payload.parse(payload);
  const boss = await getBoss();
  return boss.send(name, data, {
    ...queues[name].options,
    singletonKey: opts.singletonKey,
    startAfter: opts.startAfter,
    ...(opts.tx ? { db: inTransaction(opts.tx) } : {}),
  });
}
