import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import { grantSignupCredits, post, purchaseTopUp, reserve } from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { createUser, ownDatabase } from '../support/ledger';

// Tampering breaks the whole ledger's verification, so it happens in a database of its own.
let db: Sql;
let userId: string;

beforeAll(async () => {
  ({ db } = await ownDatabase());
  userId = (await createUser(db, 'immutable')).id;
  await grantSignupCredits(userId, db);
  await purchaseTopUp(userId, 'cs_immutable', 99, undefined, db);
  await reserve(
    userId,
    [
      { key: 'imm-1', amount: 1 },
      { key: 'imm-2', amount: 1 },
    ],
    db,
  );
  await post('imm-1', db);
});
afterAll(() => db.end());

describe('the ledger table is append-only', () => {
  it('UPDATE, DELETE and TRUNCATE fail', async () => {
    await expect(db`UPDATE ledger_entries SET amount = amount + 1 WHERE user_id = ${userId}`).rejects.toThrow(/append-only: UPDATE/);
    await expect(db`UPDATE ledger_entries SET amount = 1 WHERE false`).rejects.toThrow(/append-only/);
    await expect(db`DELETE FROM ledger_entries WHERE user_id = ${userId}`).rejects.toThrow(/append-only: DELETE/);
    await expect(db`TRUNCATE ledger_entries CASCADE`).rejects.toThrow(/append-only: TRUNCATE/);
    const [{ n }] = await db<{ n: number }[]>`SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = ${userId}`;
    expect(n).toBe(5);
  });

  it('verify passes on the untouched ledger and the system sums to zero', async () => {
    const report = await verifyLedger({}, db);
    expect(report.problems).toEqual([]);
    expect(report.systemSum).toBe(0);
    expect(report.ok).toBe(true);
  });

  it('a row changed by a superuser with the trigger disabled is found by verify, which names its sequence number', async () => {
    const [target] = await db<{ seq: string }[]>`
      SELECT seq FROM ledger_entries WHERE user_id = ${userId} AND kind = 'topup_purchase'`;
    await db.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`; // triggers off for this transaction only
      await tx`UPDATE ledger_entries SET amount = 990 WHERE seq = ${target!.seq}`;
    });
    const report = await verifyLedger({}, db);
    expect(report.ok).toBe(false);
    const hash = report.problems.find((p) => p.check === 'hash');
    expect(hash?.seq).toBe(Number(target!.seq));
    expect(hash?.message).toContain(`row ${target!.seq}`);
    // The projection no longer matches the rows either.
    expect(report.problems.some((p) => p.check === 'projection')).toBe(true);
  });

  it('a deleted row breaks the chain of the row after it', async () => {
    const other = (await createUser(db, 'immutable2')).id;
    await grantSignupCredits(other, db);
    await purchaseTopUp(other, 'cs_immutable2', 10, undefined, db);
    await purchaseTopUp(other, 'cs_immutable3', 10, undefined, db);
    const seqs = (await db<{ seq: string }[]>`SELECT seq FROM ledger_entries WHERE user_id = ${other} ORDER BY seq`).map((r) =>
      Number(r.seq),
    );
    await db.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`DELETE FROM ledger_entries WHERE seq = ${seqs[1]!}`;
    });
    const report = await verifyLedger({ userId: other }, db);
    expect(report.problems.find((p) => p.check === 'chain')?.seq).toBe(seqs[2]);
  });
});
