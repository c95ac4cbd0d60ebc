import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { adjust, entriesOf, getCreditSummary, listHistory } from '../../app/services/ledger.server';
import { listFinanceFlags } from '../../app/services/billing-flags.server';
import { recentStripeRows } from '../../app/services/ledger-admin.server';
import { exportRows } from '../../app/services/ledger-export.server';
import { reconcile } from '../../app/services/ledger-reconcile.server';
import type { TestApp } from '../support/app-server';
import {
  closeBillingApp,
  deliverInOrder,
  expectVerified,
  held,
  newBillingUser,
  settled,
  startBillingApp,
  startCheckout,
} from '../support/billing';
import type { StripeEvent, TestStripe } from '../support/stripe-server';

// Refunds in any order against the booking of what they refund, and
// the Stripe ids and money on the rows ("every dollar traceable").
let stripe: TestStripe;
let app: TestApp;

beforeAll(async () => ({ stripe, app } = await startBillingApp()));
afterAll(() => closeBillingApp(app, stripe));

type Flag = { kind: string; ref: string; detail: Record<string, unknown> };
const flagsOf = (userId: string) => sql<Flag[]>`SELECT kind, ref, detail FROM billing_finance_flags WHERE user_id = ${userId} ORDER BY id`;

/** A Pro user (subscription paid through the webhook). */
async function proUser(label: string) {
  const u = await newBillingUser(app.url, label);
  const sessionId = await startCheckout(u.client, stripe.prices.pro);
  await stripe.pay(sessionId);
  await settled();
  const subscriptionId = stripe.objects.get(sessionId)!.subscription as string;
  return { ...u, subscriptionId };
}

/** A paid top-up whose events (checkout completed, then the refund) are held back. */
async function paidTopUpHeld(client: Parameters<typeof startCheckout>[0], amount?: number) {
  const sessionId = await startCheckout(client, stripe.prices.topup100);
  const [completed] = await held(stripe, () => stripe.pay(sessionId));
  const paymentIntent = String(stripe.objects.get(sessionId)!.payment_intent);
  const [refunded] = await held(stripe, () => stripe.refund(paymentIntent, amount));
  return { sessionId, paymentIntent, completed: completed!, refunded: refunded! };
}

const kindsOf = async (userId: string, kinds: string[]) => (await entriesOf(userId)).filter((e) => kinds.includes(e.kind));

describe('a refund that arrives before the top-up is booked', () => {
  it('refund first, then checkout.session.completed: booked and reversed, flagged once, in the history', async () => {
    const { user, client } = await proUser('refund-first');
    const { sessionId, completed, refunded } = await paidTopUpHeld(client);
    expect(completed.type).toBe('checkout.session.completed');
    expect(refunded.type).toBe('charge.refunded');

    await deliverInOrder(stripe, [refunded]);
    const [waiting] = await sql<{ outcome: string }[]>`SELECT outcome FROM billing_events WHERE id = ${refunded.id}`;
    expect(waiting!.outcome).toBe('ignored');
    expect(await flagsOf(user.id)).toEqual([]);

    await deliverInOrder(stripe, [completed, refunded, completed]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 0 });
    const rows = await kindsOf(user.id, ['topup_purchase', 'topup_reversal']);
    expect(rows.map((r) => [r.kind, r.amount])).toEqual([
      ['topup_purchase', 100],
      ['topup_reversal', 100],
    ]);
    expect(rows[1]!.stripe).toMatchObject({ event: refunded.id, checkoutSession: sessionId, currency: 'usd', amountMinor: 3000 });
    const flags = await flagsOf(user.id);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ kind: 'topup_refund', detail: { session: sessionId, intended: 100, reversed: 100, shortfall: 0 } });
    const history = await listHistory(user.id);
    expect(history.rows.slice(0, 2).map((r) => [r.kind, r.delta])).toEqual([
      ['topup_reversal', -100],
      ['topup_purchase', 100],
    ]);
    const page = await (await client.get('/subscription')).text();
    expect(page).toContain('Top-up refunded');
    await expectVerified(stripe);
  });

  it('refund first, then the return page: the page books nothing the refund took back; the late webhook adds nothing', async () => {
    const { user, client } = await proUser('refund-return');
    const { sessionId, completed, refunded } = await paidTopUpHeld(client);
    await deliverInOrder(stripe, [refunded]);
    const res = await client.postJson('/api/subscription/manual-upgrade', { sessionId, isTopUp: true, creditAmount: '100' });
    expect(res.status).toBe(200);
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 0 });
    await deliverInOrder(stripe, [completed]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 0 });
    expect((await kindsOf(user.id, ['topup_purchase', 'topup_reversal'])).map((r) => r.amount)).toEqual([100, 100]);
    expect((await flagsOf(user.id)).map((f) => f.kind)).toEqual(['topup_refund']);
    await expectVerified(stripe);
  });

  it('checkout first, then the refund: the same end state', async () => {
    const { user, client } = await proUser('refund-after');
    const { completed, refunded } = await paidTopUpHeld(client);
    await deliverInOrder(stripe, [completed, refunded, refunded]);
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45, topUpCreditsRemaining: 0 });
    expect((await kindsOf(user.id, ['topup_purchase', 'topup_reversal'])).map((r) => r.amount)).toEqual([100, 100]);
    expect((await flagsOf(user.id)).map((f) => [f.kind, f.detail.shortfall])).toEqual([['topup_refund', 0]]);
    await expectVerified(stripe);
  });

  it('a partial refund takes back what the refunded money bought; the rest of it later, in any order', async () => {
    const { user, client } = await proUser('refund-partial');
    const { paymentIntent, completed, refunded: half } = await paidTopUpHeld(client, 1000);
    const [rest] = await held(stripe, () => stripe.refund(paymentIntent));
    // $10 of $30 back: the customer keeps floor(100 × 20/30) = 66 credits.
    await deliverInOrder(stripe, [half, completed]);
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 66 });
    await deliverInOrder(stripe, [rest!, half]);
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 0 });
    const reversals = await kindsOf(user.id, ['topup_reversal']);
    expect(reversals.map((r) => [r.amount, r.stripe?.amountMinor])).toEqual([
      [34, 1000],
      [66, 2000],
    ]);
    expect((await flagsOf(user.id)).map((f) => f.detail.amountRefunded)).toEqual([1000, 3000]);
    await expectVerified(stripe);
  });
});

describe('a refunded Pro invoice', () => {
  async function invoiceOf(subscriptionId: string) {
    const invoice = [...stripe.objects.values()]
      .filter(
        (o) =>
          o.object === 'invoice' &&
          (o.parent as { subscription_details: { subscription: string } }).subscription_details.subscription === subscriptionId,
      )
      .at(-1)!;
    const charge = stripe.objects.get(invoice.charge as string)!;
    return { invoice, paymentIntent: charge.payment_intent as string };
  }

  it('reverses the unspent part of the period, flags the spent part, keeps Pro while Stripe keeps the subscription', async () => {
    const { user, subscriptionId } = await proUser('refund-invoice');
    await adjust({ userId: user.id, amount: -15, reason: 'test spend', actor: 'test', bucket: 'monthly', key: `spend-${user.id}` });
    const { invoice, paymentIntent } = await invoiceOf(subscriptionId);
    const grant = (await kindsOf(user.id, ['monthly_grant'])).at(-1)!;
    expect(grant.stripe).toMatchObject({ invoice: invoice.id, charge: invoice.charge, currency: 'usd', amountMinor: 1500 });
    expect(grant.stripe?.event).toMatch(/^evt_/);

    await stripe.refund(paymentIntent);
    await settled();
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 0 });
    const [reversal] = await kindsOf(user.id, ['grant_reversal']);
    expect(reversal).toMatchObject({ amount: 30, stripe: { invoice: invoice.id, charge: invoice.charge, amountMinor: 1500 } });
    expect((await flagsOf(user.id)).map((f) => [f.kind, f.detail.intended, f.detail.reversed, f.detail.shortfall])).toEqual([
      ['invoice_refund', 45, 30, 15],
    ]);
    const [{ status }] = (await sql<
      { status: string }[]
    >`SELECT subscription_status AS status FROM users WHERE id = ${user.id}`) as unknown as [{ status: string }];
    expect(status).toBe('pro');
    // Stripe ends the subscription: Free as always.
    await stripe.endSubscription(subscriptionId);
    await settled();
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 5 });
    await expectVerified(stripe);
  });

  it('a refund of a period already over takes nothing back and flags all of it', async () => {
    const { user, subscriptionId } = await proUser('refund-old-invoice');
    const { paymentIntent } = await invoiceOf(subscriptionId);
    await stripe.renew(subscriptionId);
    await settled();
    await stripe.refund(paymentIntent);
    await settled();
    expect(await getCreditSummary(user.id)).toMatchObject({ creditsRemaining: 45 });
    expect((await kindsOf(user.id, ['grant_reversal'])).map((r) => r.amount)).toEqual([0]);
    expect((await flagsOf(user.id)).map((f) => [f.kind, f.detail.shortfall])).toEqual([['invoice_refund', 45]]);
    await expectVerified(stripe);
  });

  it('the refund arriving before its invoice.paid: granted, then the unspent part reversed at once', async () => {
    const u = await newBillingUser(app.url, 'refund-invoice-first');
    const sessionId = await startCheckout(u.client, stripe.prices.pro);
    const events = await held(stripe, () => stripe.pay(sessionId));
    const subscriptionId = stripe.objects.get(sessionId)!.subscription as string;
    const { paymentIntent } = await invoiceOf(subscriptionId);
    const refund = await held(stripe, () => stripe.refund(paymentIntent));
    await deliverInOrder(stripe, [...refund, ...events.reverse()]);
    expect(await getCreditSummary(u.user.id)).toMatchObject({ creditsRemaining: 0 });
    expect((await kindsOf(u.user.id, ['monthly_grant', 'grant_reversal'])).map((r) => [r.kind, r.amount])).toEqual([
      ['monthly_grant', 5],
      ['monthly_grant', 45],
      ['grant_reversal', 45],
    ]);
    await expectVerified(stripe);
  });
});

describe('Stripe signatures', () => {
  it('a signature dated more than 5 minutes ahead is refused; 4 minutes ahead is accepted', async () => {
    const event: StripeEvent = {
      id: `evt_future_${Date.now()}`,
      object: 'event',
      type: 'customer.tax_id.created',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'txi_x' } },
      api_version: '2026-10-28.endive',
      livemode: false,
    };
    const now = Math.floor(Date.now() / 1000);
    expect((await stripe.deliver(event, { timestamp: now + 3600 })).status).toBe(400);
    expect((await stripe.deliver(event, { timestamp: now + 310 })).status).toBe(400);
    expect(await sql`SELECT 1 FROM billing_events WHERE id = ${event.id}`).toHaveLength(0);
    expect((await stripe.deliver(event, { timestamp: now + 240 })).status).toBe(200);
    expect(await sql`SELECT 1 FROM billing_events WHERE id = ${event.id}`).toHaveLength(1);
    await settled();
  });
});

describe('two partial refunds as finance reads them: each step its own amount, with its currency, everywhere', () => {
  /** A paid, booked $30 top-up refunded $10 and $10 more, the events delivered in `order`. */
  async function twoPartialRefunds(label: string, order: 'in-order' | 'later-first') {
    const { user, client } = await proUser(label);
    const { sessionId, paymentIntent, completed, refunded: first } = await paidTopUpHeld(client, 1000);
    const [second] = await held(stripe, () => stripe.refund(paymentIntent, 1000));
    await deliverInOrder(stripe, order === 'in-order' ? [completed, first, second!] : [completed, second!, first]);
    const chargeId = String((second!.data.object as { id: string }).id);
    return { user, sessionId, chargeId };
  }

  async function expectStepsEverywhere(user: { id: string; email: string }, chargeId: string) {
    // $10 of $30, then $10 more: floor(100 × 20/30) = 66 kept, then floor(100 × 10/30) = 33.
    expect(await getCreditSummary(user.id)).toMatchObject({ topUpCreditsRemaining: 33 });
    const reversals = await kindsOf(user.id, ['topup_reversal']);
    expect(reversals.map((r) => [r.amount, r.stripe?.amountMinor, r.stripe?.currency])).toEqual([
      [34, 1000, 'usd'],
      [33, 1000, 'usd'],
    ]);
    // The flags list: the step's amount in the amount column, the running total named apart.
    const { flags } = await listFinanceFlags('open');
    const mine = flags.filter((f) => f.userEmail === user.email).reverse();
    expect(mine.map((f) => [f.kind, f.currency, f.amountMinor, f.cumulativeMinor])).toEqual([
      ['topup_refund', 'usd', 1000, 1000],
      ['topup_refund', 'usd', 1000, 2000],
    ]);
    // Latest payments: the same steps.
    const payments = (await recentStripeRows(200)).filter((p) => p.userEmail === user.email && p.kind === 'topup_reversal');
    expect(payments.map((p) => [p.currency, p.amountMinor])).toEqual([
      ['usd', 1000],
      ['usd', 1000],
    ]);
    // The export, read back with a strict CSV parser.
    const chunks: Buffer[] = [];
    const out = new Writable({ write: (c: Buffer, _e, done) => (chunks.push(c), done()) });
    await exportRows(out, { userId: user.id });
    const records = parse(Buffer.concat(chunks).toString('utf8'), { columns: true, strict: true } as never) as Record<string, string>[];
    const exported = records.filter((r) => r.kind === 'topup_reversal');
    expect(exported.map((r) => [r.currency, r.amount_minor, r.stripe_charge_id])).toEqual([
      ['usd', '1000', chargeId],
      ['usd', '1000', chargeId],
    ]);
    const purchase = records.find((r) => r.kind === 'topup_purchase')!;
    expect([purchase.currency, purchase.amount_minor]).toEqual(['usd', '3000']);
  }

  it("Stripe's shape, the later refund's event first: one row and one flag per refund object, reconciled by refund id", async () => {
    const { user, chargeId } = await twoPartialRefunds('refund-steps-stripe', 'later-first');
    await expectStepsEverywhere(user, chargeId);
    const charge = stripe.objects.get(chargeId)! as unknown as { refunds: { data: { id: string; amount: number }[] } };
    const refundIds = charge.refunds.data.map((r) => r.id).reverse();
    const lines = (await reconcile()).lines.filter((l) => l.kind === 'refund' && refundIds.includes(l.stripeId));
    expect(lines.map((l) => [l.stripeId, l.status, l.currency, l.amountMinor, l.bookedMinor])).toEqual(
      refundIds.map((id) => [id, 'matched', 'usd', 1000, 1000]),
    );
    // Each reversal row names its refund object, so each step maps to one row by Stripe's own id.
    expect((await kindsOf(user.id, ['topup_reversal'])).map((r) => r.stripe?.refund)).toEqual(refundIds);
    expect(lines.map((l) => l.ledgerSeqs.length)).toEqual([1, 1]);
    await expectVerified(stripe);
  });

  it('the running-total shape (no refund objects named): the same rows, reconciled per charge', async () => {
    stripe.setRefundShape('cumulative');
    try {
      const { user, chargeId } = await twoPartialRefunds('refund-steps-total', 'in-order');
      await expectStepsEverywhere(user, chargeId);
      const lines = (await reconcile()).lines.filter((l) => l.stripeId === chargeId);
      expect(lines.map((l) => [l.kind, l.status, l.currency, l.amountMinor, l.bookedMinor])).toEqual([
        ['refund', 'matched', 'usd', 2000, 2000],
      ]);
      await expectVerified(stripe);
    } finally {
      stripe.setRefundShape('stripe');
    }
  });
});
