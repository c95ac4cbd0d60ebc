import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../db/client';
import {
  getCreditSummary,
  grantSignupCredits,
  post,
  purchaseTopUp,
  reserve,
  voidHold,
  LedgerError,
} from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { createUser } from '../support/ledger';

// A pool wide enough for real concurrency on the shared test database.
const db = connect(process.env.DATABASE_URL, 20);
afterAll(() => db.end());

async function newUserWithGrant() {
  const user = await createUser(db, 'conc');
  await grantSignupCredits(user.id, db);
  return user;
}

describe('ledger under concurrency', () => {
  it('50 concurrent 1-credit reserves on 5 credits: exactly 5 succeed, never below zero, verify passes', async () => {
    const user = await newUserWithGrant();
    expect((await getCreditSummary(user.id, db)).totalCreditsRemaining).toBe(5);
    const readings: number[] = [];
    let done = false;
    const watcher = (async () => {
      while (!done) readings.push((await getCreditSummary(user.id, db)).totalCreditsRemaining);
    })();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => reserve(user.id, [{ key: `${user.id}:c50:${i}`, amount: 1 }], db)),
    );
    done = true;
    await watcher;
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(5);
    expect(failed).toHaveLength(45);
    for (const f of failed) {
      expect(f.reason).toBeInstanceOf(LedgerError);
      expect((f.reason as Error).message).toBe('Insufficient credits');
    }
    expect(readings.length).toBeGreaterThan(0);
    expect(Math.min(...readings)).toBeGreaterThanOrEqual(0);
    const summary = await getCreditSummary(user.id, db);
    expect(summary.totalCreditsRemaining).toBe(0);
    const [{ n }] = await db<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = ${user.id} AND kind = 'reserve'`;
    expect(n).toBe(5);
    const report = await verifyLedger({ userId: user.id }, db);
    expect(report.problems).toEqual([]);
  });

  it('replaying one grant, one top-up and one post 10 times, also concurrently, books each once', async () => {
    const user = await createUser(db, 'replay');
    const session = `cs_${user.id}`;
    const item = `${user.id}:replay-item`;
    // Sequential replays.
    for (let i = 0; i < 10; i++) {
      await grantSignupCredits(user.id, db);
      await purchaseTopUp(user.id, session, 99, undefined, db);
    }
    await reserve(user.id, [{ key: item, amount: 2 }], db);
    for (let i = 0; i < 10; i++) await post(item, db);
    // Concurrent replays of the same three events.
    await Promise.all([
      ...Array.from({ length: 10 }, () => grantSignupCredits(user.id, db)),
      ...Array.from({ length: 10 }, () => purchaseTopUp(user.id, session, 99, undefined, db)),
      ...Array.from({ length: 10 }, () => post(item, db)),
    ]);
    const counts = await db<{ kind: string; n: number }[]>`
      SELECT kind, count(*)::int AS n FROM ledger_entries WHERE user_id = ${user.id} GROUP BY kind ORDER BY kind`;
    expect(Object.fromEntries(counts.map((c) => [c.kind, c.n]))).toEqual({
      monthly_grant: 1,
      topup_purchase: 1,
      reserve: 1,
      post: 1,
    });
    expect(await getCreditSummary(user.id, db)).toMatchObject({ creditsRemaining: 3, topUpCreditsRemaining: 99 });
    expect((await verifyLedger({ userId: user.id }, db)).problems).toEqual([]);
  });

  it('concurrent first bookings of a fresh top-up key book it once', async () => {
    const user = await createUser(db, 'replay2');
    const results = await Promise.all(Array.from({ length: 10 }, () => purchaseTopUp(user.id, `cs_fresh_${user.id}`, 360, undefined, db)));
    expect(new Set(results.map((r) => r.seq)).size).toBe(1);
    expect((await getCreditSummary(user.id, db)).topUpCreditsRemaining).toBe(360);
  });

  it('post and void of the same hold, racing: exactly one wins', async () => {
    const user = await createUser(db, 'race');
    await purchaseTopUp(user.id, `cs_race_${user.id}`, 40, undefined, db);
    const items = Array.from({ length: 20 }, (_, i) => ({ key: `${user.id}:race:${i}`, amount: 2 }));
    await reserve(user.id, items, db);
    for (const { key } of items) {
      const [p, v] = await Promise.allSettled([post(key, db), voidHold(key, db)]);
      const winners = [p, v].filter((r) => r.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      const loser = [p, v].find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expect((loser.reason as LedgerError).code).toBe('already_resolved');
    }
    const [{ resolved }] = await db<{ resolved: number }[]>`
      SELECT count(*)::int AS resolved FROM ledger_entries WHERE user_id = ${user.id} AND kind IN ('post', 'void')`;
    expect(resolved).toBe(20);
    const [{ open }] = await db<{ open: number }[]>`SELECT count(*)::int AS open FROM ledger_open_holds WHERE user_id = ${user.id}`;
    expect(open).toBe(0);
    expect((await verifyLedger({ userId: user.id }, db)).problems).toEqual([]);
  });
});
