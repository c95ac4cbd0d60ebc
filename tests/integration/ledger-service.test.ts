import { describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import {
  adjust,
  entriesOf,
  forfeitTopUp,
  getCreditSummary,
  grantSignupCredits,
  listHistory,
  loadCreditHistory,
  PAGE_SIZE,
  post,
  purchaseTopUp,
  reserve,
  reverseTopUp,
  extendHolds,
  sweepExpiredHolds,
  voidHold,
} from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { loadEnv } from '../../app/runtime/env.server';
import { createUser } from '../support/ledger';

async function userWithGrant(label: string) {
  const user = await createUser(sql, label);
  await grantSignupCredits(user.id, sql);
  return user;
}

describe('ledger service', () => {
  it('reserve holds, post spends, void releases', async () => {
    const user = await userWithGrant('happy');
    const held = await reserve(user.id, [
      { key: `${user.id}:a`, amount: 1 },
      { key: `${user.id}:b`, amount: 2 },
    ]);
    expect(held.map((e) => [e.kind, e.amount, e.idempotencyKey])).toEqual([
      ['reserve', 1, `reserve:${user.id}:a`],
      ['reserve', 2, `reserve:${user.id}:b`],
    ]);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(2);
    const [posted] = await post(`${user.id}:a`);
    expect(posted).toMatchObject({ kind: 'post', amount: 1, pendingSeq: held[0]!.seq, balanceAfter: 2 });
    const [voided] = await voidHold(`${user.id}:b`);
    expect(voided).toMatchObject({ kind: 'void', amount: 2, pendingSeq: held[1]!.seq, balanceAfter: 4 });
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 4, topUpCreditsRemaining: 0, totalCreditsRemaining: 4 });
    // A replayed reserve of a resolved item books nothing new.
    const again = await reserve(user.id, [{ key: `${user.id}:a`, amount: 1 }]);
    expect(again.map((e) => e.seq)).toEqual([held[0]!.seq]);
    await expect(post(`${user.id}:nothing`)).rejects.toThrow(/No hold/);
    expect((await verifyLedger({ userId: user.id })).problems).toEqual([]);
  });

  it('reserving is all or nothing', async () => {
    const user = await userWithGrant('allornothing');
    await expect(
      reserve(user.id, [
        { key: `${user.id}:1`, amount: 2 },
        { key: `${user.id}:2`, amount: 2 },
        { key: `${user.id}:3`, amount: 2 },
      ]),
    ).rejects.toThrow('Insufficient credits');
    expect((await entriesOf(user.id)).map((e) => e.kind)).toEqual(['monthly_grant']);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(5);
  });

  it('spends monthly credits first, then top-up credits, splitting an item across the buckets', async () => {
    const user = await userWithGrant('monthlyfirst');
    await purchaseTopUp(user.id, `cs_${user.id}`, 99);
    await reserve(user.id, [{ key: `${user.id}:x`, amount: 4 }]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 1, topUpCreditsRemaining: 99 });
    const split = await reserve(user.id, [{ key: `${user.id}:y`, amount: 2 }]);
    expect(split.map((e) => [e.idempotencyKey, e.amount])).toEqual([
      [`reserve:${user.id}:y`, 1],
      [`reserve:${user.id}:y#2`, 1],
    ]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 0, topUpCreditsRemaining: 98, totalCreditsRemaining: 98 });
    const resolved = await post(`${user.id}:y`);
    expect(resolved.map((e) => e.idempotencyKey)).toEqual([`post:${user.id}:y`, `post:${user.id}:y#2`]);
    await reserve(user.id, [{ key: `${user.id}:z`, amount: 2 }]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 0, topUpCreditsRemaining: 96 });
    expect((await verifyLedger({ userId: user.id })).problems).toEqual([]);
  });

  it('forfeit moves the whole top-up bucket to expired as one row, once', async () => {
    const user = await userWithGrant('forfeit');
    await purchaseTopUp(user.id, `cs1_${user.id}`, 99);
    await purchaseTopUp(user.id, `cs2_${user.id}`, 360);
    const first = await forfeitTopUp(user.id, `downgrade_${user.id}`);
    const again = await forfeitTopUp(user.id, `downgrade_${user.id}`);
    expect(again.seq).toBe(first.seq);
    expect(first).toMatchObject({ kind: 'topup_forfeit', amount: 459, balanceAfter: 5 });
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 5, topUpCreditsRemaining: 0 });
  });

  it('a refunded purchase is reversed, capped at what is left', async () => {
    const user = await userWithGrant('reversal');
    await purchaseTopUp(user.id, `cs_${user.id}`, 99);
    await reserve(user.id, [{ key: `${user.id}:spent`, amount: 15 }]); // 5 monthly + 10 top-up
    const reversal = await reverseTopUp(user.id, `cs_${user.id}`);
    expect(reversal).toMatchObject({ kind: 'topup_reversal', amount: 89 });
    expect((await getCreditSummary(user.id)).topUpCreditsRemaining).toBe(0);
    expect((await reverseTopUp(user.id, `cs_${user.id}`)).seq).toBe(reversal.seq);
  });

  it('an adjustment is a new row with its reason and actor; a debit cannot overdraw', async () => {
    const user = await userWithGrant('adjust');
    const credit = await adjust({ userId: user.id, amount: 3, reason: 'Support ticket 42', actor: 'ops@example.com' });
    expect(credit).toMatchObject({ kind: 'adjustment', amount: 3, reason: 'Support ticket 42', actor: 'ops@example.com', balanceAfter: 8 });
    const debit = await adjust({ userId: user.id, amount: -2, reason: 'Duplicate grant', actor: 'ops@example.com' });
    expect(debit).toMatchObject({ amount: 2, balanceAfter: 6 });
    await expect(adjust({ userId: user.id, amount: -100, reason: 'Too much', actor: 'ops' })).rejects.toThrow('Insufficient credits');
    await expect(adjust({ userId: user.id, amount: 1, reason: '  ', actor: 'ops' })).rejects.toThrow(/reason/);
    const keyed = await adjust({ userId: user.id, amount: 1, reason: 'Retry-safe', actor: 'ops', key: `k-${user.id}` });
    expect((await adjust({ userId: user.id, amount: 1, reason: 'Retry-safe', actor: 'ops', key: `k-${user.id}` })).seq).toBe(keyed.seq);
    expect((await getCreditSummary(user.id)).creditsRemaining).toBe(7);
    expect((await verifyLedger({ userId: user.id })).problems).toEqual([]);
  });

  it('history is newest first, 20 a page, with the balance after each row', async () => {
    const user = await userWithGrant('history');
    await purchaseTopUp(user.id, `cs_${user.id}`, 100);
    const items = Array.from({ length: 23 }, (_, i) => ({ key: `${user.id}:h${i}`, amount: 1 }));
    await reserve(user.id, items);
    for (const it of items.slice(0, 10)) await post(it.key);
    // 1 grant + 1 purchase + 23 reserves + 10 posts = 35 rows
    const first = await listHistory(user.id, 1);
    expect(first).toMatchObject({ page: 1, pageCount: 2, total: 35 });
    expect(first.rows).toHaveLength(PAGE_SIZE);
    expect(first.rows[0]!.kind).toBe('post');
    expect(first.rows[0]!.delta).toBe(0);
    expect(first.rows.map((r) => r.seq)).toEqual([...first.rows.map((r) => r.seq)].sort((a, b) => b - a));
    const second = await listHistory(user.id, 2);
    expect(second.rows).toHaveLength(15);
    const oldest = second.rows.at(-1)!;
    expect(oldest).toMatchObject({ kind: 'monthly_grant', delta: 5, balanceAfter: 5, bucket: 'monthly' });
    expect(second.rows.at(-2)).toMatchObject({ kind: 'topup_purchase', delta: 100, balanceAfter: 105, bucket: 'topup' });
    expect(first.rows.at(-1)!.seq).toBeGreaterThan(second.rows[0]!.seq);
    // Out-of-range pages clamp.
    expect((await listHistory(user.id, 99)).page).toBe(2);
    const other = await createUser(sql, 'history-other');
    expect((await listHistory(other.id, 1)).rows).toEqual([]);
    // What /subscription loads: plain values in (the route reads ?historyPage=), JSON-ready data out.
    const loaded = await loadCreditHistory(user.id, 2);
    expect(loaded.history).toMatchObject({ page: 2, pageCount: 2, total: 35 });
    expect(loaded.history.rows.map((r) => r.seq)).toEqual(second.rows.map((r) => r.seq));
    expect(typeof loaded.history.rows[0]!.createdAt).toBe('string');
    // The series starts on the account's first day (today here) and ends on today's balance.
    expect(loaded.balance).toHaveLength(1);
    expect(loaded.balance.at(-1)!.balance).toBe(82);
  });
});

describe('hold expiry', () => {
  const holdsOf = (userId: string) =>
    sql<
      { item: string; expiresAt: Date }[]
    >`SELECT item, expires_at AS "expiresAt" FROM ledger_open_holds WHERE user_id = ${userId} ORDER BY seq`;
  const voidedItems = async (userId: string) => (await entriesOf(userId)).filter((e) => e.kind === 'void').map((e) => e.externalRef);
  const expire = (item: string) => sql`UPDATE ledger_open_holds SET expires_at = now() - interval '1 second' WHERE item = ${item}`;

  it('a hold expires LEDGER_HOLD_MAX_AGE_SECONDS after it is made unless its owner sets its own expiry', async () => {
    const user = await userWithGrant('expiry-default');
    const before = Date.now();
    const later = new Date(before + 6 * 3600_000);
    await reserve(user.id, [
      { key: `${user.id}:default`, amount: 1 },
      { key: `${user.id}:own`, amount: 1, expiresAt: later },
    ]);
    const [byDefault, own] = await holdsOf(user.id);
    const max = loadEnv().LEDGER_HOLD_MAX_AGE_SECONDS * 1000;
    expect(byDefault!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + max - 5_000);
    expect(byDefault!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + max + 5_000);
    expect(own!.expiresAt.toISOString()).toBe(later.toISOString());
    await expect(reserve(user.id, [{ key: `${user.id}:past`, amount: 1, expiresAt: new Date(before - 1000) }])).rejects.toMatchObject({
      code: 'invalid',
    });
    await expect(reserve(user.id, [{ key: `${user.id}:nan`, amount: 1, expiresAt: new Date(NaN) }])).rejects.toMatchObject({
      code: 'invalid',
    });
  });

  it('the sweeper voids expired holds only, however old the others are', async () => {
    const user = await userWithGrant('sweep');
    await reserve(user.id, [
      { key: `${user.id}:expired`, amount: 1 },
      { key: `${user.id}:long`, amount: 1, expiresAt: new Date(Date.now() + 24 * 3600_000) },
    ]);
    await expire(`${user.id}:expired`);
    // Made two days ago, but its owner said it runs until tomorrow: queued or running work keeps it.
    await sql`UPDATE ledger_open_holds SET created_at = now() - interval '2 days' WHERE item = ${`${user.id}:long`}`;
    expect(await sweepExpiredHolds()).toBeGreaterThanOrEqual(1);
    expect(await voidedItems(user.id)).toEqual([`${user.id}:expired`]);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(4);
    expect((await verifyLedger({ userId: user.id })).problems).toEqual([]);
  });

  it('extendHolds moves expiries on (never back) and names the holds still open; an extended hold survives the sweeper', async () => {
    const user = await userWithGrant('extend');
    await reserve(user.id, [
      { key: `${user.id}:a`, amount: 1 },
      { key: `${user.id}:b`, amount: 1 },
      { key: `${user.id}:done`, amount: 1 },
    ]);
    await post(`${user.id}:done`);
    await expire(`${user.id}:a`);
    const until = new Date(Date.now() + 2 * 3600_000);
    const open = await extendHolds([`${user.id}:a`, `${user.id}:b`, `${user.id}:done`, `${user.id}:unknown`], until);
    expect(open.sort()).toEqual([`${user.id}:a`, `${user.id}:b`]);
    await sweepExpiredHolds();
    expect(await voidedItems(user.id)).toEqual([]);
    const far = new Date(Date.now() + 48 * 3600_000);
    await extendHolds([`${user.id}:b`], far);
    await extendHolds([`${user.id}:b`], new Date(Date.now() + 3600_000));
    const holds = await holdsOf(user.id);
    expect(holds.map((h) => [h.item, h.expiresAt.toISOString()])).toEqual([
      [`${user.id}:a`, until.toISOString()],
      [`${user.id}:b`, far.toISOString()],
    ]);
    await expect(extendHolds([`${user.id}:a`], new Date(Date.now() - 1000))).rejects.toMatchObject({ code: 'invalid' });
  });

  it('an extension that commits while the sweeper waits for the hold keeps it (the sweeper checks again under the lock)', async () => {
    const user = await userWithGrant('extend-race');
    const item = `${user.id}:racing`;
    await reserve(user.id, [{ key: item, amount: 2 }]);
    await expire(item);
    let release!: () => void;
    const extended = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // The owner extends in a transaction that stays open until the sweeper is blocked on its rows.
    const owner = sql.begin(async (tx) => {
      await extendHolds([item], new Date(Date.now() + 3600_000), tx);
      locked();
      await extended;
    });
    await holding;
    const sweeper = sweepExpiredHolds();
    // Wait until the sweeper's session is waiting on a lock (no timing: poll pg_locks).
    for (let i = 0; i < 500; i++) {
      const [waiting] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE NOT l.granted AND a.query LIKE '%ledger_void_expired%'`;
      if (waiting!.n > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    release();
    await owner;
    await sweeper;
    expect(await voidedItems(user.id)).toEqual([]);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(3);
  });

  it('verify flags an unresolved hold past its expiry, not an old one that is still valid', async () => {
    const user = await userWithGrant('verify-expired');
    await reserve(user.id, [{ key: `${user.id}:old-valid`, amount: 1, expiresAt: new Date(Date.now() + 3600_000) }]);
    await sql`UPDATE ledger_open_holds SET created_at = now() - interval '3 days' WHERE item = ${`${user.id}:old-valid`}`;
    expect((await verifyLedger({ userId: user.id })).problems).toEqual([]);
    await reserve(user.id, [{ key: `${user.id}:expired`, amount: 1 }]);
    await expire(`${user.id}:expired`);
    const report = await verifyLedger({ userId: user.id });
    expect(report.problems).toEqual([expect.objectContaining({ check: 'expired_hold', userId: user.id })]);
    expect(report.problems[0]!.message).toContain(`${user.id}:expired`);
    // The run's database is shared: files that verify the whole ledger must not find this hold.
    await voidHold(`${user.id}:expired`);
    expect((await verifyLedger({ userId: user.id })).problems).toEqual([]);
  });
});

describe('ledger input checks', () => {
  it('refuses unknown users, empty and non-positive amounts', async () => {
    await expect(purchaseTopUp(crypto.randomUUID(), 'cs_nobody', 10)).rejects.toThrow(/Unknown user/);
    const user = await userWithGrant('checks');
    await expect(reserve(user.id, [{ key: `${user.id}:zero`, amount: 0 }])).rejects.toThrow(/positive/);
    await expect(
      reserve(user.id, [
        { key: `${user.id}:dup`, amount: 1 },
        { key: `${user.id}:dup`, amount: 1 },
      ]),
    ).rejects.toThrow(/Duplicate/);
    expect(await reserve(user.id, [])).toEqual([]);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(5);
  });
});
