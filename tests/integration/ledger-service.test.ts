import { describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import {
  adjust,
  balanceSeries,
  entriesOf,
  forfeitTopUp,
  getCreditSummary,
  grantSignupCredits,
  listHistory,
  PAGE_SIZE,
  post,
  purchaseTopUp,
  reserve,
  reverseTopUp,
  sweepStaleHolds,
  voidHold,
} from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { createUser } from '../support/ledger';


async function userWithGrant(label: string) {
  const user = await createUser(sql, label);
  await grantSignupCredits(user.id, sql);
  return user;
}

describe('ledger service', () => {
  it('reserve holds, post spends, void releases', async () => {
    const user = await userWithGrant('happy');
    const held = await reserve(user.id, [{ key: `${user.id}:a`, amount: 1 }, { key: `${user.id}:b`, amount: 2 }]);
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
      reserve(user.id, [{ key: `${user.id}:1`, amount: 2 }, { key: `${user.id}:2`, amount: 2 }, { key: `${user.id}:3`, amount: 2 }]),
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
    const series = await balanceSeries(user.id, 90);
    expect(series).toHaveLength(90);
    expect(series.at(-1)!.balance).toBe(82);
    expect(series[0]!.balance).toBe(0);
  });

  it('the sweeper voids holds older than the age and leaves fresh ones', async () => {
    const user = await userWithGrant('sweep');
    await reserve(user.id, [{ key: `${user.id}:old`, amount: 1 }]);
    // An hour-old hold: backdate its open-hold entry (the projection the sweeper reads).
    await sql`UPDATE ledger_open_holds SET created_at = now() - interval '2 hours' WHERE item = ${`${user.id}:old`}`;
    await reserve(user.id, [{ key: `${user.id}:new`, amount: 1 }]);
    await sweepStaleHolds(60 * 60 * 1000);
    const kinds = (await entriesOf(user.id)).map((e) => [e.kind, e.externalRef]);
    expect(kinds).toContainEqual(['void', `${user.id}:old`]);
    expect(kinds).not.toContainEqual(['void', `${user.id}:new`]);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(4);
  });
});

describe('ledger input checks', () => {
  it('refuses unknown users, empty and non-positive amounts', async () => {
    await expect(purchaseTopUp(crypto.randomUUID(), 'cs_nobody', 10)).rejects.toThrow(/Unknown user/);
    const user = await userWithGrant('checks');
    await expect(reserve(user.id, [{ key: `${user.id}:zero`, amount: 0 }])).rejects.toThrow(/positive/);
    await expect(reserve(user.id, [{ key: `${user.id}:dup`, amount: 1 }, { key: `${user.id}:dup`, amount: 1 }])).rejects.toThrow(/Duplicate/);
    expect(await reserve(user.id, [])).toEqual([]);
    expect((await getCreditSummary(user.id)).totalCreditsRemaining).toBe(5);
  });
});
