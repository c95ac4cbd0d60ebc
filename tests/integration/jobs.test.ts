import { describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { enqueue, getBoss } from '../../jobs/boss';

describe('pg-boss inside a postgres.js transaction', () => {
  it('a rolled-back transaction leaves no job, a committed one leaves exactly one', async () => {
    const key = `rollback-${Date.now()}`;
    const payload = { messageKey: key, to: 'a@example.com', template: 'set-password' as const, language: 'en' as const, params: { name: 'A', link: 'x' } };
    await expect(
      sql.begin(async (tx) => {
        await enqueue('send-email', payload, { tx });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const count = async () =>
      Number((await sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'send-email' AND data->>'messageKey' = ${key}`)[0]!.n);
    expect(await count()).toBe(0);
    await sql.begin(async (tx) => {
      await enqueue('send-email', payload, { tx });
    });
    expect(await count()).toBe(1);
    expect(await getBoss()).toBeTruthy();
  });
});
