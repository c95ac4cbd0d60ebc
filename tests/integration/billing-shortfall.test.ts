import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { adjust, entriesOf, getCreditSummary } from '../../app/services/ledger.server';
import { listFinanceFlags } from '../../app/services/billing-flags.server';
import { reconcile } from '../../app/services/ledger-reconcile.server';
import {
  attemptShortfallRecovery,
  closeShortfallRecovery,
  recentShortfalls,
  retryShortfallRecovery,
  ShortfallPending,
} from '../../app/services/billing/shortfalls.server';
import type { TestApp } from '../support/app-server';
import { closeBillingApp, expectVerified, newBillingUser, settled, startBillingApp, startCheckout } from '../support/billing';
import type { TestStripe } from '../support/stripe-server';

// A refund of credits already spent: the reversal takes what the bucket holds, and the shortfall is
// taken back later by a bounded job whose state (pending, retrying, done, failed, closed) finance
// sees on the admin page and in `reconcile`, and the user on the subscription page.
let stripe: TestStripe;
let app: TestApp;

beforeAll(async () => ({ stripe, app } = await startBillingApp()));
afterAll(() => closeBillingApp(app, stripe));

type Recovery = { ref: string; short: number; recovered: number; attempts: number; lastError: string | null };
const recoveriesOf = (userId: string) => sql<Recovery[]>`
  SELECT ref, credits_short AS short, credits_recovered AS recovered, attempts, last_error AS "lastError"
  FROM billing_shortfall_recoveries WHERE user_id = ${userId} ORDER BY created_at, ref`;

/** A Pro user who bought a 100-credit top-up ($30), spent `spend` of it, then had it refunded in full. */
async function spentThenRefunded(label: string, spend: number) {
  const u = await newBillingUser(app.url, label);
  await sql`UPDATE users SET subscription_status = 'pro' WHERE id = ${u.user.id}`;
  const sessionId = await startCheckout(u.client, stripe.prices.topup100);
  await stripe.pay(sessionId);
  await settled();
  if (spend > 0) await adjust({ userId: u.user.id, amount: -spend, reason: 'spent', actor: 'test', bucket: 'topup' });
  const paymentIntent = String(stripe.objects.get(sessionId)!.payment_intent);
  await stripe.refund(paymentIntent);
  await settled();
  return { ...u, sessionId, paymentIntent };
}

async function buyTopUp(client: Parameters<typeof startCheckout>[0]) {
  const sessionId = await startCheckout(client, stripe.prices.topup100);
  await stripe.pay(sessionId);
  await settled();
}

const lineOf = async (ref: string) => (await reconcile()).lines.find((l) => l.kind === 'shortfall' && l.flags.includes(ref))!;

describe('a refund of credits already spent', () => {
  it('pending, then retrying while nothing is free, then done once credits come free: seen by finance, reconcile and the user', async () => {
    const { user, client } = await spentThenRefunded('shortfall-done', 60);
    // 40 were left: the reversal took those, 60 are short.
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 0 });
    const [rec] = await recoveriesOf(user.id);
    expect(rec).toMatchObject({ short: 60, recovered: 0, attempts: 0, lastError: null });
    const ref = rec!.ref;
    expect(await lineOf(ref)).toMatchObject({ status: 'flagged', currency: 'usd', amountMinor: 3000 });
    expect((await lineOf(ref)).note).toBe('outstanding: 60 of 60 credits short, pending');
    let page = await (await client.get('/subscription')).text();
    expect(page).toContain('you had already used 60 of the credits it bought');

    // Nothing free: retrying, with the attempt and its error code kept.
    await expect(attemptShortfallRecovery(ref, 3)).rejects.toBeInstanceOf(ShortfallPending);
    expect((await recoveriesOf(user.id))[0]).toMatchObject({ attempts: 1, lastError: 'insufficient_credits', recovered: 0 });
    const flag = (await listFinanceFlags('open')).flags.find((f) => f.ref === ref)!;
    expect(flag.recovery).toMatchObject({ state: 'retrying', attempts: 1, lastError: 'insufficient_credits', creditsShort: 60 });
    expect((await lineOf(ref)).status).toBe('flagged');

    // A new top-up frees credits: the next attempt takes the 60 from the same bucket, once.
    await buyTopUp(client);
    expect(await attemptShortfallRecovery(ref, 3)).toMatchObject({ outcome: 'applied' });
    expect(await attemptShortfallRecovery(ref, 3)).toMatchObject({ outcome: 'ignored' });
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 40 });
    const recovery = (await entriesOf(user.id)).filter((e) => e.kind === 'topup_reversal' && e.externalRef === ref);
    expect(recovery.map((e) => [e.amount, e.stripe])).toEqual([[60, null]]);
    expect(await lineOf(ref)).toMatchObject({ status: 'matched', credits: 60, note: 'shortfall of 60 credits taken back' });
    expect((await recentShortfalls(user.id))[0]).toMatchObject({ state: 'done', creditsShort: 60, creditsRecovered: 60 });
    page = await (await client.get('/subscription')).text();
    expect(page).toContain('were taken from your balance');
    await expectVerified(stripe);
  });

  it('bounded: failed once its attempts are spent (exit 1 in reconcile, flag reopened), then retried or closed by an admin', async () => {
    const { user, client } = await spentThenRefunded('shortfall-failed', 100);
    const [rec] = await recoveriesOf(user.id);
    const ref = rec!.ref;
    // Acknowledged meanwhile: a failure opens it again.
    await sql`UPDATE billing_finance_flags SET acknowledged_at = now() WHERE ref = ${ref}`;
    await expect(attemptShortfallRecovery(ref, 2)).rejects.toBeInstanceOf(ShortfallPending);
    expect(await attemptShortfallRecovery(ref, 2)).toMatchObject({ outcome: 'refused' });
    expect(await attemptShortfallRecovery(ref, 2)).toMatchObject({ outcome: 'ignored' });
    const line = await lineOf(ref);
    expect(line.status).toBe('unmatched');
    expect(line.note).toBe('outstanding: 100 of 100 credits short after 2 attempts: insufficient_credits');
    const flag = (await listFinanceFlags('open')).flags.find((f) => f.ref === ref)!;
    expect(flag.recovery).toMatchObject({ state: 'failed', attempts: 2 });
    const page = await (await client.get('/subscription')).text();
    expect(page).toContain('could not be taken from your balance');

    const [admin] = await sql<{ id: string }[]>`SELECT id FROM users WHERE id = ${user.id}`;
    // Retry: attempts start over, pending again, recorded.
    expect(await retryShortfallRecovery(ref, admin!.id)).toBe(true);
    expect(await retryShortfallRecovery(ref, admin!.id)).toBe(false);
    expect((await recoveriesOf(user.id))[0]).toMatchObject({ attempts: 0, lastError: null });
    expect((await lineOf(ref)).status).toBe('flagged');
    await expect(attemptShortfallRecovery(ref, 1)).resolves.toMatchObject({ outcome: 'refused' });
    // Close with a note: settled for reconcile, who and when kept.
    expect(await closeShortfallRecovery(ref, admin!.id, '   ')).toBe(false);
    expect(await closeShortfallRecovery(ref, admin!.id, 'written off: goodwill')).toBe(true);
    expect(await lineOf(ref)).toMatchObject({
      status: 'matched',
      note: 'closed by hand with 100 of 100 credits short: written off: goodwill',
    });
    const closed = (await listFinanceFlags('acknowledged')).flags.find((f) => f.ref === ref)!;
    expect(closed.recovery).toMatchObject({ state: 'closed', closeNote: 'written off: goodwill' });
    expect(closed.lastAction).toMatchObject({ action: 'shortfall_close', by: user.email, note: 'written off: goodwill' });
    expect(await attemptShortfallRecovery(ref, 5)).toMatchObject({ outcome: 'ignored' });
  });

  it('no shortfall when nothing was spent: no recovery opened', async () => {
    const { user } = await spentThenRefunded('shortfall-none', 0);
    expect(await recoveriesOf(user.id)).toEqual([]);
  });

  it('any order of attempts and top-ups: never more taken than was short, and done exactly when it is all back', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 100 }),
        fc.array(fc.constantFrom<'attempt' | 'topup'>('attempt', 'topup'), { minLength: 1, maxLength: 5 }),
        async (spend, steps) => {
          run++;
          const { user, client } = await spentThenRefunded(`shortfall-prop-${run}`, spend);
          const [rec] = await recoveriesOf(user.id);
          const ref = rec!.ref;
          let free = 0;
          let taken = 0;
          let attempts = 0;
          for (const step of steps) {
            if (step === 'topup') {
              await buyTopUp(client);
              free += 100;
              continue;
            }
            if (taken === spend) {
              expect((await attemptShortfallRecovery(ref, 10)).outcome).toBe('ignored');
              continue;
            }
            attempts++;
            const take = Math.min(spend - taken, free);
            taken += take;
            free -= take;
            const outcome = await attemptShortfallRecovery(ref, 10).catch((err: unknown) => {
              expect(err).toBeInstanceOf(ShortfallPending);
              return { outcome: 'pending' };
            });
            expect(outcome.outcome).toBe(taken === spend ? 'applied' : 'pending');
          }
          expect((await recoveriesOf(user.id))[0]).toMatchObject({ short: spend, recovered: taken, attempts });
          expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: free });
          expect((await lineOf(ref)).status).toBe(taken === spend ? 'matched' : 'flagged');
        },
      ),
      { numRuns: 8, seed: 20261127, endOnFailure: true },
    );
    await expectVerified(stripe);
  }, 300_000);
});
