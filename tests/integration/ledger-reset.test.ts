import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { plans } from '../../app/catalogue';
import { migrate } from '../../db/migrate';
import {
  ensureCurrentPeriod,
  expireMonthly,
  grantMonthly,
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
    await ensureCurrentPeriod(user.id, undefined, db);
    expect(await kindsOf(user.id)).toHaveLength(1);
  });

  it('registration books the first grant in its own transaction', async () => {
    const email = `ledger-register-${crypto.randomUUID()}@example.com`;
    const result = await registerUser({ name: 'New Person', email, language: 'en' });
    expect(result.ok).toBe(true);
    const userId = (result as { userId: string }).userId;
    expect(await getCreditSummary(userId, db)).toMatchObject({ creditsRemaining: 5, totalCreditsRemaining: 5 });
    expect((await kindsOf(userId)).map((r) => r.key)).toEqual([
      expect.stringMatching(new RegExp(`^grant:${userId}:\\d{4}-\\d{2}-\\d{2}$`)),
    ]);
  });

  it('the reset expires what is left, then grants the plan amount', async () => {
    const user = await createUser(db, 'reset');
    await grantSignupCredits(user.id, db);
    await reserve(user.id, [{ key: `${user.id}:r1`, amount: 2 }], db);
    await ensureCurrentPeriod(user.id, nextMonth, db);
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
        ...users.map((u) => resetMonthly(u.id, nextMonth, workerA)),
        ...users.map((u) => resetMonthly(u.id, nextMonth, workerB)),
        ...users.map((u) => ensureCurrentPeriod(u.id, nextMonth, own.db)),
        resetDueUsers({ now: nextMonth }, workerA),
        resetDueUsers({ now: nextMonth }, workerB),
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
    await Promise.all([ensureCurrentPeriod(user.id, undefined, db), ensureCurrentPeriod(user.id, undefined, db)]);
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

  it('the Free grant is the catalogue amount; a Free account gets it on its anniversary from the job and the lazy path', async () => {
    const user = await createUser(db, 'free-anniversary');
    await grantSignupCredits(user.id, db);
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(plans.free.monthlyCredits);
    // The job at the next anniversary books it; the lazy path after it finds nothing left to do.
    const own = await ownDatabase(2);
    try {
      const u = await createUser(own.db, 'free-job');
      await grantSignupCredits(u.id, own.db);
      await resetDueUsers({ now: nextMonth }, own.db);
      await ensureCurrentPeriod(u.id, nextMonth, own.db);
      const grants = (await kindsOf(u.id, own.db)).filter((r) => r.kind === 'monthly_grant');
      expect(grants.map((g) => Number(g.amount))).toEqual([plans.free.monthlyCredits, plans.free.monthlyCredits]);
    } finally {
      await own.db.end();
    }
  });

  for (const status of ['pro', 'canceled'] as const) {
    it(`a ${status} account's month comes only from its paid invoice: the job and the lazy path book nothing`, async () => {
      const user = await createUser(db, `invoice-${status}`);
      await grantSignupCredits(user.id, db); // signed up Free: 5
      await db`UPDATE users SET subscription_status = ${status} WHERE id = ${user.id}`;
      // Billing on the paid invoice: expire what is left, grant Pro's amount, keyed by the invoice.
      const invoice = `in_${crypto.randomUUID()}`;
      await expireMonthly(user.id, invoice, undefined, db);
      const grant = await grantMonthly(user.id, invoice, plans.pro.monthlyCredits, undefined, db);
      // A webhook replay books nothing new.
      expect((await grantMonthly(user.id, invoice, plans.pro.monthlyCredits, undefined, db)).seq).toBe(grant.seq);
      // The anniversary passes: the scheduled job, the lazy check and the pages' summary run.
      await resetMonthly(user.id, nextMonth, db);
      await ensureCurrentPeriod(user.id, nextMonth, db);
      await getCurrentCreditSummary(user.id, db);
      const rows = await kindsOf(user.id);
      expect(rows.map((r) => [r.kind, Number(r.amount)])).toEqual([
        ['monthly_grant', plans.free.monthlyCredits],
        ['monthly_expire', plans.free.monthlyCredits],
        ['monthly_grant', plans.pro.monthlyCredits],
      ]);
      expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(plans.pro.monthlyCredits);
      // The anniversary moved on, so the hourly job does not pick the account again.
      const [state] = await db<{ next: Date }[]>`SELECT next_reset_at AS next FROM ledger_users WHERE user_id = ${user.id}`;
      expect(state!.next.getTime()).toBeGreaterThan(nextMonth.getTime());
      expect((await verifyLedger({ userId: user.id }, db)).problems).toEqual([]);
    });
  }

  it('a Pro anniversary that the job reaches before the paid invoice books nothing; the invoice then grants once', async () => {
    const user = await createUser(db, 'invoice-late');
    await grantSignupCredits(user.id, db);
    await db`UPDATE users SET subscription_status = 'pro' WHERE id = ${user.id}`;
    await resetMonthly(user.id, nextMonth, db);
    expect((await kindsOf(user.id)).map((r) => r.kind)).toEqual(['monthly_grant']);
    const invoice = `in_${crypto.randomUUID()}`;
    await expireMonthly(user.id, invoice, undefined, db);
    await grantMonthly(user.id, invoice, plans.pro.monthlyCredits, undefined, db);
    await ensureCurrentPeriod(user.id, nextMonth, db);
    expect((await kindsOf(user.id)).filter((r) => r.kind === 'monthly_grant').map((r) => Number(r.amount))).toEqual([
      plans.free.monthlyCredits,
      plans.pro.monthlyCredits,
    ]);
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(plans.pro.monthlyCredits);
  });

  it('a Pro account whose first reset runs while Pro gets nothing; back on Free, the next anniversary expires what Pro left and grants Free', async () => {
    const user = await createUser(db, 'pro-then-free');
    await db`UPDATE users SET subscription_status = 'pro' WHERE id = ${user.id}`;
    expect(await grantSignupCredits(user.id, db)).toEqual([]);
    await grantMonthly(user.id, `in_${user.id}`, plans.pro.monthlyCredits, undefined, db);
    await reserve(user.id, [{ key: `${user.id}:spent`, amount: 5 }], db);
    await db`UPDATE users SET subscription_status = 'free' WHERE id = ${user.id}`;
    await ensureCurrentPeriod(user.id, nextMonth, db);
    expect((await kindsOf(user.id)).map((r) => [r.kind, Number(r.amount)])).toEqual([
      ['monthly_grant', plans.pro.monthlyCredits],
      ['reserve', 5],
      ['monthly_expire', plans.pro.monthlyCredits - 5],
      ['monthly_grant', plans.free.monthlyCredits],
    ]);
  });

  it('a grant key reused for another amount is a conflict, not a silent replay', async () => {
    const user = await createUser(db, 'key-conflict');
    await grantSignupCredits(user.id, db);
    const [grant] = await kindsOf(user.id);
    const label = grant!.key.split(':').at(-1)!;
    // Billing labelling an invoice like the Free anniversary would otherwise be told "granted".
    await expect(grantMonthly(user.id, label, plans.pro.monthlyCredits, undefined, db)).rejects.toMatchObject({ code: 'key_conflict' });
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(plans.free.monthlyCredits);
  });

  it('ledger_reset reads the Free amount from ledger_plans, and every migrate writes the catalogue into it', async () => {
    const own = await ownDatabase(2);
    try {
      expect(await own.db`SELECT plan, monthly_credits::int AS credits FROM ledger_plans ORDER BY plan`).toEqual([
        { plan: 'free', credits: plans.free.monthlyCredits },
        { plan: 'pro', credits: plans.pro.monthlyCredits },
      ]);
      await own.db`UPDATE ledger_plans SET monthly_credits = 7 WHERE plan = 'free'`;
      const seven = await createUser(own.db, 'plans-seven');
      await grantSignupCredits(seven.id, own.db);
      expect((await getCreditSummary(seven.id, own.db)).creditsRemaining).toBe(7);
      expect(await migrate(own.db)).toEqual([]);
      const five = await createUser(own.db, 'plans-catalogue');
      await grantSignupCredits(five.id, own.db);
      expect((await getCreditSummary(five.id, own.db)).creditsRemaining).toBe(plans.free.monthlyCredits);
    } finally {
      await own.db.end();
    }
  });
});
