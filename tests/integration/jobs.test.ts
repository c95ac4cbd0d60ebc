import { describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { enqueue, enqueueMany, getBoss } from '../../app/queue/boss';

describe('pg-boss inside a postgres.js transaction', () => {
  it('a rolled-back transaction leaves no job, a committed one leaves exactly one', async () => {
    const key = `rollback-${Date.now()}`;
    const payload = {
      messageKey: key,
      to: 'a@example.com',
      template: 'set-password' as const,
      language: 'en' as const,
      params: { name: 'A', link: 'x' },
    };
    await expect(
      sql.begin(async (tx) => {
        await enqueue('send-email', payload, {}, tx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const count = async () =>
      Number((await sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND data->>'messageKey' = ${key}`)[0]!.n);
    expect(await count()).toBe(0);
    await sql.begin(async (tx) => {
      await enqueue('send-email', payload, {}, tx);
    });
    expect(await count()).toBe(1);
  });

  it("enqueueMany puts a batch in with the caller's transaction: all or none", async () => {
    const prefix = `batch-${Date.now()}`;
    const items = Array.from({ length: 250 }, (_, i) => ({
      payload: {
        messageKey: `${prefix}-${i}`,
        to: 'a@example.com',
        template: 'set-password' as const,
        language: 'en' as const,
        params: {},
      },
      priority: i % 3,
    }));
    const count = async () =>
      Number(
        (await sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND data->>'messageKey' LIKE ${prefix + '-%'}`)[0]!
          .n,
      );
    await expect(
      sql.begin(async (tx) => {
        await enqueueMany('send-email', items, tx);
        expect(Number((await tx`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'messageKey' LIKE ${prefix + '-%'}`)[0]!.n)).toBe(
          250,
        );
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await count()).toBe(0);
    await sql.begin((tx) => enqueueMany('send-email', items, tx));
    expect(await count()).toBe(250);
    const [row] = await sql`SELECT retry_limit FROM pgboss.job WHERE data->>'messageKey' = ${prefix + '-0'}`;
    expect(row!.retry_limit).toBe(8);
    await expect(enqueueMany('send-email', [{ payload: { ...items[0]!.payload, to: 'not-an-address' } }])).rejects.toThrow();
    await getBoss();
  });
});
