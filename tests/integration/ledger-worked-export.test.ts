import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { getCreditSummary } from '../../app/services/ledger.server';
import type { TestApp } from '../support/app-server';
import { closeBillingApp, expectVerified, newBillingUser, settled, startBillingApp, startCheckout } from '../support/billing';
import type { TestStripe } from '../support/stripe-server';

// The worked export finance quotes: a Pro subscription, a $100 top-up refunded $50 and then to $75
// in all (one charge, two refund objects), and a duplicate Pro subscription canceled and refunded.
// `npm run ledger -- export` is read back with a strict CSV parser and summed per account the naive
// way an auditor would (README's reading rule), which must give the balances. The CSV and the
// `reconcile` output are printed; with WORKED_EXPORT_OUT=<file> they are also written there
// (`npm run ledger:worked-export`).
const root = path.resolve(__dirname, '../..');
let stripe: TestStripe;
let app: TestApp;

beforeAll(async () => ({ stripe, app } = await startBillingApp()));
afterAll(() => closeBillingApp(app, stripe));

async function ledgerCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', ['build/server/ledger.js', ...args], { cwd: root, env: process.env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function until(what: string, check: () => Promise<boolean>, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the worked export', () => {
  it('Pro, a $100 top-up refunded $50 then $75 in all, a duplicate subscription refunded: the naive per-account sums are the balances', async () => {
    const started = new Date(Date.now() - 1000);
    const { user, client } = await newBillingUser(app.url, 'worked-export');
    // Pro, paid through Checkout.
    await stripe.pay(await startCheckout(client, stripe.prices.pro));
    await settled();
    // A $100 top-up (360 credits).
    const topUp = await startCheckout(client, stripe.prices.topup360);
    await stripe.pay(topUp);
    await settled();
    const paymentIntent = String(stripe.objects.get(topUp)!.payment_intent);
    // Refunded $50, then $25 more: $75 in all, two refund objects on one charge.
    await stripe.refund(paymentIntent, 5000);
    await settled();
    await stripe.refund(paymentIntent, 2500);
    await settled();
    // A second Pro subscription: canceled and refunded by the billing-duplicate job.
    const [customer] = await sql<{ id: string }[]>`SELECT stripe_customer_id AS id FROM billing_customers WHERE user_id = ${user.id}`;
    const extra = await stripe.subscribe(customer!.id, { userId: user.id });
    await settled();
    await until('the duplicate refund', async () => {
      const [row] = await sql<{ done: Date | null }[]>`
        SELECT duplicate_resolved_at AS done FROM billing_subscriptions WHERE subscription_id = ${extra.id}`;
      return Boolean(row?.done);
    });
    await settled();

    const exported = await ledgerCli('export', '--user', user.email);
    expect(exported.code).toBe(0);
    // Strict: every record has the header's column count, quotes are well-formed, nothing skipped or trimmed.
    const records = parse(exported.stdout, {
      columns: true,
      relax_column_count: false,
      relax_quotes: false,
      skip_empty_lines: false,
      skip_records_with_error: false,
      trim: false,
      bom: false,
    }) as Record<string, string>[];
    expect(records.map((r) => r.kind)).toEqual([
      'monthly_grant', // Free at sign-up
      'monthly_expire',
      'monthly_grant', // the Pro month
      'topup_purchase',
      'topup_reversal', // $50 of $100
      'topup_reversal', // $25 more
    ]);

    // The auditor's sum: skip holds (reserve) and released holds (void); every other row moves
    // `amount` from `from_account` to `to_account`.
    const balances = new Map<string, number>();
    for (const r of records) {
      if (r.kind === 'reserve' || r.kind === 'void') continue;
      const amount = Number(r.amount);
      balances.set(r.from_account!, (balances.get(r.from_account!) ?? 0) - amount);
      balances.set(r.to_account!, (balances.get(r.to_account!) ?? 0) + amount);
    }
    const summary = await getCreditSummary(user.id);
    expect(balances.get('user:monthly')).toBe(summary.creditsRemaining);
    expect(balances.get('user:topup')).toBe(summary.topUpCreditsRemaining);
    // 360 bought; $50 of $100 back leaves 180, $75 back leaves floor(360 × 25/100) = 90.
    expect(summary).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 90 });

    // The money, summed per kind the same way: each refund row carries its own step, in its currency.
    const money = (kind: string) =>
      records.filter((r) => r.kind === kind).map((r) => [r.currency, Number(r.amount_minor), r.stripe_refund_id.startsWith('re_')]);
    expect(money('topup_purchase')).toEqual([['usd', 10000, false]]);
    expect(money('topup_reversal')).toEqual([
      ['usd', 5000, true],
      ['usd', 2500, true],
    ]);
    const reversals = records.filter((r) => r.kind === 'topup_reversal');
    expect(new Set(reversals.map((r) => r.stripe_charge_id)).size).toBe(1);
    expect(new Set(reversals.map((r) => r.stripe_refund_id)).size).toBe(2);
    // The duplicate granted nothing and books nothing: its $15 refund is reconcile's `duplicate` line.
    const reconciled = await ledgerCli('reconcile', '--from', started.toISOString());
    const lines = parse(reconciled.stdout, { columns: true, relax_column_count: false }) as Record<string, string>[];
    const mine = lines.filter((l) => l.user_id === user.id);
    // In any order (lines sort by Stripe's random ids); the duplicate's refund is booked by no row
    // on purpose, flagged, and still the account's.
    const refundLines = mine.filter((l) => l.kind === 'refund').map((l) => [l.status, l.currency, l.amount_minor, l.booked_minor]);
    expect(refundLines.sort()).toEqual([
      ['flagged', 'usd', '1500', ''],
      ['matched', 'usd', '2500', '2500'],
      ['matched', 'usd', '5000', '5000'],
    ]);
    expect(mine.find((l) => l.kind === 'duplicate')).toMatchObject({
      status: 'matched',
      stripe_id: extra.id,
      currency: 'usd',
      amount_minor: '1500',
    });
    expect(mine.filter((l) => l.status === 'unmatched' || l.status === 'double')).toEqual([]);

    const report = [
      '$ npm run ledger -- export --user <the user>',
      exported.stdout.trimEnd(),
      '',
      '# manifest (standard error)',
      exported.stderr.trimEnd(),
      '',
      '# naive per-account sums (reserve and void rows skipped)',
      ...[...balances.entries()].sort().map(([account, n]) => `${account} = ${n}`),
      '',
      `$ npm run ledger -- reconcile --from ${started.toISOString()}   # exit ${reconciled.code}`,
      reconciled.stdout.trimEnd(),
      reconciled.stderr.trimEnd(),
      '',
    ].join('\n');
    console.log(report);
    if (process.env.WORKED_EXPORT_OUT) fs.writeFileSync(process.env.WORKED_EXPORT_OUT, report);
    await expectVerified(stripe);
  }, 120_000);
});
