import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import {
  adjust,
  forfeitTopUp,
  getCreditSummary,
  grantSignupCredits,
  LedgerError,
  post,
  purchaseTopUp,
  reserve,
  resetMonthly,
  reverseTopUp,
  voidHold,
} from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { createUser, ownDatabase } from '../support/ledger';

// Random sequences of every operation, checked against a plain model; then the rows must replay
// to the stored projections and the whole system must sum to zero.
let db: Sql;
beforeAll(async () => {
  ({ db } = await ownDatabase(6));
});
afterAll(() => db.end());

type Op =
  | { t: 'purchase'; amount: number }
  | { t: 'reserve'; amounts: number[] }
  | { t: 'resolve'; pick: number; outcome: 'post' | 'void' }
  | { t: 'forfeit' }
  | { t: 'adjust'; amount: number; bucket: 'monthly' | 'topup' }
  | { t: 'reverse'; pick: number }
  | { t: 'reset' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('purchase' as const), amount: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ t: fc.constant('reserve' as const), amounts: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 }) }),
  fc.record({ t: fc.constant('resolve' as const), pick: fc.nat(), outcome: fc.constantFrom('post' as const, 'void' as const) }),
  fc.record({ t: fc.constant('forfeit' as const) }),
  fc.record({
    t: fc.constant('adjust' as const),
    amount: fc.integer({ min: -5, max: 5 }).filter((n) => n !== 0),
    bucket: fc.constantFrom('monthly' as const, 'topup' as const),
  }),
  fc.record({ t: fc.constant('reverse' as const), pick: fc.nat() }),
  fc.record({ t: fc.constant('reset' as const) }),
);

describe('ledger property', () => {
  it('after random operations the projection equals the replay and the system sums to zero', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), async (ops) => {
        run++;
        const user = await createUser(db, 'prop');
        await grantSignupCredits(user.id, db);
        const model = { monthly: 5, topup: 0 };
        const open = new Map<string, { monthly: number; topup: number }>();
        const purchases: { ref: string; amount: number; reversed: boolean }[] = [];
        let n = 0;
        let month = 0;
        for (const op of ops) {
          n++;
          switch (op.t) {
            case 'purchase': {
              const ref = `cs_${run}_${n}_${user.id}`;
              await purchaseTopUp(user.id, ref, op.amount, undefined, db);
              purchases.push({ ref, amount: op.amount, reversed: false });
              model.topup += op.amount;
              break;
            }
            case 'reserve': {
              const items = op.amounts.map((amount, i) => ({ key: `${user.id}:${n}:${i}`, amount }));
              const need = op.amounts.reduce((a, b) => a + b, 0);
              if (need > model.monthly + model.topup) {
                await expect(reserve(user.id, items, db)).rejects.toThrow('Insufficient credits');
              } else {
                await reserve(user.id, items, db);
                for (const item of items) {
                  const m = Math.min(model.monthly, item.amount);
                  model.monthly -= m;
                  model.topup -= item.amount - m;
                  open.set(item.key, { monthly: m, topup: item.amount - m });
                }
              }
              break;
            }
            case 'resolve': {
              const keys = [...open.keys()];
              if (keys.length === 0) break;
              const key = keys[op.pick % keys.length]!;
              const hold = open.get(key)!;
              open.delete(key);
              if (op.outcome === 'post') await post(key, db);
              else {
                await voidHold(key, db);
                model.monthly += hold.monthly;
                model.topup += hold.topup;
              }
              break;
            }
            case 'forfeit':
              await forfeitTopUp(user.id, `down_${run}_${n}`, undefined, db);
              model.topup = 0;
              break;
            case 'adjust': {
              const have = model[op.bucket];
              if (op.amount < 0 && have + op.amount < 0) {
                await expect(
                  adjust({ userId: user.id, amount: op.amount, reason: 'test', actor: 'prop', bucket: op.bucket }, db),
                ).rejects.toBeInstanceOf(LedgerError);
              } else {
                await adjust({ userId: user.id, amount: op.amount, reason: 'test', actor: 'prop', bucket: op.bucket }, db);
                model[op.bucket] += op.amount;
              }
              break;
            }
            case 'reverse': {
              const candidates = purchases.filter((p) => !p.reversed);
              if (candidates.length === 0) break;
              const p = candidates[op.pick % candidates.length]!;
              p.reversed = true;
              const entry = await reverseTopUp(user.id, p.ref, db);
              expect(entry.amount).toBe(Math.min(p.amount, model.topup));
              model.topup -= entry.amount;
              break;
            }
            case 'reset': {
              month++;
              const now = new Date(Date.now() + (month * 31 + 1) * 86_400_000);
              await resetMonthly(user.id, now, db);
              model.monthly = 5;
              break;
            }
          }
          const summary = await getCreditSummary(user.id, db);
          expect({ monthly: summary.creditsRemaining, topup: summary.topUpCreditsRemaining }).toEqual(model);
        }
        const report = await verifyLedger({ userId: user.id }, db);
        expect(report.problems).toEqual([]);
      }),
      { numRuns: 25, seed: 20261122 },
    );
    const report = await verifyLedger({}, db);
    expect(report.problems).toEqual([]);
    expect(report.systemSum).toBe(0);
  }, 60_000);
});
