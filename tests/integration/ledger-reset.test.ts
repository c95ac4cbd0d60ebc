import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import {
  ensureCurrentPeriod,
  getCreditSummary,
  getCurrentCreditSummary,
  grantSignupCredits,
  reserve,
  resetDueUsers,
  resetMonthly,
} from '../../app/services/ledger.server';
import { registerUser } from '../../app/services/auth.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { createUser, ownDatabase } from '../support/ledger';

const db = connect(process.env.DATABASE_URL, 12);
afterAll(() => db.end());

// The clock handed to the reset: a month and a day from now, when the next reset is due.
const nextMonth = new Date(Date.now() + 32 * 86_400_000);

async function kindsOf(userId: string, sql: Sql = db) {
  return sql<{ kind: string; key: string; amount: string }[]>`
    SELECT kind, idempotency_key AS key, amount FROM ledger_entries WHERE user_id = ${userId} ORDER BY seq`;
}

describe('monthly reset', () => {
  it('a new account gets its first Free grant of 5, due again a month later', async () => {
    const user = await createUser(db, 'signup');
    await db.begin((tx) => grantSignupCredits(user.id, tx));
    const summary = await getCreditSummary(user.id, db);
    expect(summary).toMatchObject({ creditsRemaining: 5, topUpCreditsRemaining: 0, totalCreditsRemaining: 5 });
    const days = (summary.nextResetAt!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(27);
    expect(days).toBeLessThan(32);
    // Nothing is due: the lazy check books nothing.
    await ensureCurrentPeriod(user.id, db);
    expect(await kindsOf(user.id)).toHaveLength(1);
  });

  it('registration books the first grant in its own transaction', async () => {
    const email = `ledger-register-${crypto.randomUUID()}@example.com`;
    const result = await registerUser({ name: 'New Person', email, language: 'en' });
    expect(result.ok).toBe(true);
    const userId = (result as { userId: string }).userId;
    expect(await getCreditSummary(userId, db)).toMatchObject({ creditsRemaining: 5, totalCreditsRemaining: 5 });
    expect((await kindsOf(userId)).map((r) => r.key)).toEqual([expect.stringMatching(new RegExp(`^grant:${userId}:\\d{4}-\\d{2}-\\d{2}$`))]);
  });

  it('the reset expires what is left, then grants the plan amount', async () => {
    const user = await createUser(db, 'reset');
    await grantSignupCredits(user.id, db);
    await reserve(user.id, [{ key: `${user.id}:r1`, amount: 2 }], db);
    await ensureCurrentPeriod(user.id, db, nextMonth);
    const rows = await kindsOf(user.id);
    expect(rows.map((r) => [r.kind, Number(r.amount)])).toEqual([
      ['monthly_grant', 5],
      ['reserve', 2],
      ['monthly_expire', 3],
      ['monthly_grant', 5],
    ]);
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(5);
    expect((await verifyLedger({ userId: user.id }, db)).problems).toEqual([]);
  });

  it('two workers at the same moment and the lazy path racing: one expire and one grant per user and period', async () => {
    // A database of its own: the scheduled pass resets every due user it finds.
    const own = await ownDatabase(4);
    const users = await Promise.all(Array.from({ length: 6 }, () => createUser(own.db, 'race-reset')));
    for (const u of users) {
      await grantSignupCredits(u.id, own.db);
    }
    const workerA = connect(own.url, 3);
    const workerB = connect(own.url, 3);
    try {
      await Promise.all([
        ...users.map((u) => resetMonthly(u.id, workerA, nextMonth)),
        ...users.map((u) => resetMonthly(u.id, workerB, nextMonth)),
        ...users.map((u) => ensureCurrentPeriod(u.id, own.db, nextMonth)),
        resetDueUsers(workerA, 500, nextMonth),
        resetDueUsers(workerB, 500, nextMonth),
      ]);
    } finally {
      await workerA.end();
      await workerB.end();
    }
    for (const u of users) {
      const rows = await kindsOf(u.id, own.db);
      expect(rows.filter((r) => r.kind === 'monthly_expire')).toHaveLength(1);
      expect(rows.filter((r) => r.kind === 'monthly_grant')).toHaveLength(2); // signup + this period
      const periodKeys = rows.filter((r) => r.kind === 'monthly_grant').map((r) => r.key);
      expect(new Set(periodKeys).size).toBe(2);
      expect((await getCreditSummary(u.id, own.db)).creditsRemaining).toBe(5);
    }
    const report = await verifyLedger({}, own.db);
    expect(report.problems).toEqual([]);
    expect(report.systemSum).toBe(0);
    await own.db.end();
  });

  it('the lazy check opens the ledger of an account made before it existed', async () => {
    const user = await createUser(db, 'legacy');
    expect((await getCreditSummary(user.id, db)).totalCreditsRemaining).toBe(0);
    await Promise.all([ensureCurrentPeriod(user.id, db), ensureCurrentPeriod(user.id, db)]);
    expect((await kindsOf(user.id)).map((r) => r.kind)).toEqual(['monthly_grant']);
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(5);
  });

  it('the summary the pages show runs the lazy check: nothing booked when not due, the reset when due', async () => {
    const legacy = await createUser(db, 'summary-legacy');
    expect(await getCurrentCreditSummary(legacy.id, db)).toMatchObject({ creditsRemaining: 5, totalCreditsRemaining: 5 });
    expect((await kindsOf(legacy.id)).map((r) => r.kind)).toEqual(['monthly_grant']);
    // Not due: repeated reads book nothing.
    await getCurrentCreditSummary(legacy.id, db);
    await getCurrentCreditSummary(legacy.id, db);
    expect(await kindsOf(legacy.id)).toHaveLength(1);
  });

  it('a Pro account is granted 45', async () => {
    const user = await createUser(db, 'pro');
    await db`UPDATE users SET subscription_status = 'pro' WHERE id = ${user.id}`;
    await grantSignupCredits(user.id, db);
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(45);
  });
});
