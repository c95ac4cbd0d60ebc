import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import { grantSignupCredits, purchaseTopUp, reverseRefund } from '../../app/services/ledger.server';
import { reconcile } from '../../app/services/ledger-reconcile.server';
import { createUser, ownDatabase } from '../support/ledger';

// `npm run ledger -- reconcile` as an operator runs it, against a database of its
// own holding stored webhook events and the rows booked for them: one of each outcome planted.
const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
let url: string;
let db: Sql;
let user: { id: string; email: string };

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliOn(url, ...args);
}

async function cliOn(dbUrl: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, ['app/cli/ledger.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A verified webhook event as the intake stores it, already processed. */
async function storeEvent(id: string, type: string, object: Record<string, unknown>, receivedAt = new Date(), on: Sql = db) {
  await on`INSERT INTO billing_events (id, type, payload, received_at, processed_at, outcome)
    VALUES (${id}, ${type}, ${on.json({ id, object: 'event', type, data: { object } } as never)}, ${receivedAt}, now(), 'applied')`;
}

const session = (id: string, pi: string) => ({
  id,
  object: 'checkout.session',
  mode: 'payment',
  payment_status: 'paid',
  payment_intent: pi,
  amount_total: 3000,
  currency: 'usd',
});
const money = (id: string, pi: string, event: string) => ({
  event,
  checkoutSession: id,
  paymentIntent: pi,
  currency: 'usd',
  amountMinor: 3000,
});

beforeAll(async () => {
  ({ url, db } = await ownDatabase(2));
  user = await createUser(db, 'reconcile');
  await grantSignupCredits(user.id, db);

  // Matched: paid, booked once, then refunded in full and reversed once (the two events of the
  // purchase, a repeat delivery included, count once).
  await storeEvent('evt_ok', 'checkout.session.completed', session('cs_ok', 'pi_ok'));
  await storeEvent('evt_ok_async', 'checkout.session.async_payment_succeeded', session('cs_ok', 'pi_ok'));
  await purchaseTopUp(user.id, 'cs_ok', 100, money('cs_ok', 'pi_ok', 'evt_ok'), db);
  const charge = { id: 'ch_ok', object: 'charge', payment_intent: 'pi_ok', amount: 3000, amount_refunded: 3000, currency: 'usd' };
  await storeEvent('evt_ok_refund', 'charge.refunded', charge);
  await reverseRefund(
    {
      kind: 'topup',
      userId: user.id,
      ref: 'cs_ok',
      refundedMinor: 3000,
      credits: 100,
      origin: {
        event: 'evt_ok_refund',
        checkoutSession: 'cs_ok',
        paymentIntent: 'pi_ok',
        charge: 'ch_ok',
        currency: 'usd',
        amountMinor: 3000,
      },
    },
    db,
  );

  // Unmatched: Stripe says paid, nothing booked, no flag.
  await storeEvent('evt_lost', 'checkout.session.completed', session('cs_lost', 'pi_lost'));

  // Double: one payment, two purchase rows naming its session.
  await storeEvent('evt_dbl', 'checkout.session.completed', session('cs_dbl', 'pi_dbl'));
  await purchaseTopUp(user.id, 'cs_dbl', 100, money('cs_dbl', 'pi_dbl', 'evt_dbl'), db);
  await purchaseTopUp(user.id, 'cs_dbl-again', 100, money('cs_dbl', 'pi_dbl', 'evt_dbl'), db);

  // Flagged: a paid invoice booked by no row on purpose (its period was over), with its flag.
  await storeEvent('evt_inv', 'invoice.paid', { id: 'in_late', object: 'invoice', amount_paid: 1500, currency: 'usd' });
  await db`INSERT INTO billing_finance_flags (ref, user_id, kind, detail)
    VALUES ('invoice:in_late', ${user.id}, 'invoice_not_granted', ${db.json({ invoice: 'in_late' } as never)})`;

  // Outside the window below: an old unmatched payment.
  await storeEvent('evt_old', 'checkout.session.completed', session('cs_old', 'pi_old'), new Date('2020-01-02T00:00:00Z'));
});
afterAll(() => db.end());

describe('npm run ledger -- reconcile', () => {
  it('finds the unmatched payment and the double booking, prints the CSV and exits 1', async () => {
    const res = await cli('reconcile');
    expect(res.code).toBe(1);
    const [header, ...lines] = res.stdout.trim().split('\n');
    expect(header).toBe('kind,status,stripe_id,user_id,currency,amount_minor,credits,booked_minor,ledger_seqs,events,flags,note');
    const byId = new Map(lines.map((l) => [l.split(',')[2], l.split(',')]));
    expect(byId.get('cs_ok')!.slice(0, 8)).toEqual(['payment', 'matched', 'cs_ok', user.id, 'usd', '3000', '100', '3000']);
    expect(byId.get('cs_ok')![9]).toBe('evt_ok evt_ok_async');
    expect(byId.get('ch_ok')!.slice(0, 8)).toEqual(['refund', 'matched', 'ch_ok', user.id, 'usd', '3000', '100', '3000']);
    expect(byId.get('cs_lost')!.slice(0, 2)).toEqual(['payment', 'unmatched']);
    expect(byId.get('cs_dbl')!.slice(0, 2)).toEqual(['payment', 'double']);
    expect(byId.get('cs_dbl')![8]!.split(' ')).toHaveLength(2);
    expect(byId.get('in_late')!.slice(0, 2)).toEqual(['payment', 'flagged']);
    expect(byId.get('in_late')![10]).toBe('invoice_not_granted:invoice:in_late');
    expect(byId.get('cs_old')!.slice(0, 2)).toEqual(['payment', 'unmatched']);
    expect(res.stderr).toContain('payments: 1 matched, 1 flagged, 2 unmatched, 1 double');
    expect(res.stderr).toContain('refunds: 1 matched, 0 flagged, 0 unmatched, 0 double');
    expect(res.stderr).toContain('MISMATCH');
  });

  it('--from/--to choose the events by their arrival; a window with only the old payment', async () => {
    const old = await cli('reconcile', '--from', '2020-01-01', '--to', '2020-02-01');
    expect(old.code).toBe(1);
    expect(
      old.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[2]),
    ).toEqual(['cs_old']);
    const none = await cli('reconcile', '--from', '2019-01-01', '--to', '2019-02-01');
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('OK');
    expect((await cli('reconcile', '--from', 'last tuesday')).code).toBe(2);
  });

  it('a ledger row with Stripe money that no stored event names is reported too', async () => {
    const ghost = await purchaseTopUp(user.id, 'cs_ghost', 100, money('cs_ghost', 'pi_ghost', 'evt_ghost'), db);
    const report = await reconcile({}, db);
    const line = report.lines.find((l) => l.kind === 'ledger')!;
    expect(line).toMatchObject({ status: 'unmatched', stripeId: 'cs_ghost', ledgerSeqs: [ghost.seq] });
    expect(report.ok).toBe(false);
  });
});

describe('reconcile by refund object: a $30 top-up refunded $10, then $10 more, as Stripe sends it', () => {
  // A database of its own, so a correctly booked history can exit 0.
  let own: { url: string; db: Sql };
  let buyer: { id: string };
  const refundObject = (id: string, amount: number) => ({ id, object: 'refund', amount, currency: 'usd', status: 'succeeded' });
  /** The charge as charge.refunded carries it: the running total, and every refund object so far, newest first. */
  const chargeAfter = (refunds: { id: string; amount: number }[]) => ({
    id: 'ch_two',
    object: 'charge',
    payment_intent: 'pi_two',
    amount: 3000,
    currency: 'usd',
    amount_refunded: refunds.reduce((n, r) => n + r.amount, 0),
    refunds: { object: 'list', data: refunds.map((r) => refundObject(r.id, r.amount)).reverse() },
  });
  const reversal = (level: number, minor: number, credits: number, event: string) =>
    reverseRefund(
      {
        kind: 'topup',
        userId: buyer.id,
        ref: 'cs_two',
        refundedMinor: level,
        credits,
        origin: { event, checkoutSession: 'cs_two', paymentIntent: 'pi_two', charge: 'ch_two', currency: 'usd', amountMinor: minor },
      },
      own.db,
    );

  beforeAll(async () => {
    own = await ownDatabase(2);
    buyer = await createUser(own.db, 'reconcile-steps');
    await grantSignupCredits(buyer.id, own.db);
    await storeEvent('evt_two', 'checkout.session.completed', session('cs_two', 'pi_two'), new Date(), own.db);
    await purchaseTopUp(buyer.id, 'cs_two', 100, money('cs_two', 'pi_two', 'evt_two'), own.db);
    await storeEvent('evt_two_r1', 'charge.refunded', chargeAfter([{ id: 're_one', amount: 1000 }]), new Date(), own.db);
    await storeEvent(
      'evt_two_r2',
      'charge.refunded',
      chargeAfter([
        { id: 're_one', amount: 1000 },
        { id: 're_two', amount: 1000 },
      ]),
      new Date(),
      own.db,
    );
  });
  afterAll(() => own.db.end());

  it('booked once per refund object: exit 0, one matched line per re_… with its own amount', async () => {
    await reversal(1000, 1000, 34, 'evt_two_r1');
    await reversal(2000, 1000, 33, 'evt_two_r2');
    const res = await cliOn(own.url, 'reconcile');
    expect(res.stderr).toContain('OK');
    expect(res.code).toBe(0);
    const lines = res.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const refunds = lines.filter((l) => l[0] === 'refund').map((l) => [l[1], l[2], l[4], l[5], l[7]]);
    expect(refunds).toEqual([
      ['matched', 're_one', 'usd', '1000', '1000'],
      ['matched', 're_two', 'usd', '1000', '1000'],
    ]);
  });

  it('a refund object with no row, then a row of the wrong amount: exit 1 naming it', async () => {
    // A third refund of $5 that nothing booked.
    await storeEvent(
      'evt_two_r3',
      'charge.refunded',
      chargeAfter([
        { id: 're_one', amount: 1000 },
        { id: 're_two', amount: 1000 },
        { id: 're_three', amount: 500 },
      ]),
      new Date(),
      own.db,
    );
    let res = await cliOn(own.url, 'reconcile');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^refund,unmatched,re_three,.*no ledger row$/m);

    // Booked at its running total, but with the wrong money.
    await reversal(2500, 700, 16, 'evt_two_r3');
    res = await cliOn(own.url, 'reconcile');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^refund,unmatched,re_three,.*wrong amount: booked 700 of 500$/m);
  });

  it('a row at a running total no refund object reaches is a double booking', async () => {
    await reversal(2600, 100, 0, 'evt_two_r3');
    const res = await cliOn(own.url, 'reconcile');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^refund,double,ch_two,.*which no refund object reaches"$/m);
    expect(res.stderr).toContain('MISMATCH');
  });
});

describe('reconcile by refund id: rows that name the refund object they book', () => {
  const refunds = [
    { id: 're_ida', object: 'refund', amount: 1000, currency: 'usd', status: 'succeeded' },
    { id: 're_idb', object: 'refund', amount: 1500, currency: 'usd', status: 'succeeded' },
  ];
  const reversal = (level: number, minor: number, refund: string) =>
    reverseRefund(
      {
        kind: 'topup',
        userId: user.id,
        ref: 'cs_ids',
        refundedMinor: level,
        credits: 1,
        origin: { checkoutSession: 'cs_ids', paymentIntent: 'pi_ids', charge: 'ch_ids', refund, currency: 'usd', amountMinor: minor },
      },
      db,
    );
  const linesOf = async () =>
    (await reconcile({}, db)).lines
      .filter((l) => l.kind === 'refund' && ['re_ida', 're_idb', 'ch_ids'].includes(l.stripeId))
      .map((l) => [l.stripeId, l.status, l.amountMinor, l.bookedMinor, l.ledgerSeqs.length, l.note]);

  it('each refund object matches the one row naming it; a row naming a refund Stripe never listed is a double booking', async () => {
    await storeEvent('evt_ids', 'checkout.session.completed', session('cs_ids', 'pi_ids'));
    await purchaseTopUp(user.id, 'cs_ids', 100, money('cs_ids', 'pi_ids', 'evt_ids'), db);
    await storeEvent('evt_ids_r', 'charge.refunded', {
      id: 'ch_ids',
      object: 'charge',
      payment_intent: 'pi_ids',
      amount: 3000,
      currency: 'usd',
      amount_refunded: 2500,
      refunds: { object: 'list', data: [...refunds].reverse() },
    });
    await reversal(1000, 1000, 're_ida');
    await reversal(2500, 1500, 're_idb');
    expect(await linesOf()).toEqual([
      ['re_ida', 'matched', 1000, 1000, 1, ''],
      ['re_idb', 'matched', 1500, 1500, 1, ''],
    ]);
    await reversal(2600, 100, 're_ghost');
    // Lines come sorted by Stripe id: the charge's stray row first.
    expect(await linesOf()).toEqual([
      ['ch_ids', 'double', null, 100, 1, 'booked at re_ghost, which no refund object reaches'],
      ['re_ida', 'matched', 1000, 1000, 1, ''],
      ['re_idb', 'matched', 1500, 1500, 1, ''],
    ]);
  });
});

describe('npm run ledger -- --help', () => {
  it('prints the commands and exits 0, without a database', async () => {
    for (const args of [['--help'], ['-h'], []]) {
      const res = await cli(...args);
      expect(res.code).toBe(0);
      for (const command of ['export', 'verify', 'reconcile', 'adjust', 'role']) expect(res.stdout).toContain(`  ${command}`);
      expect(res.stderr).toBe('');
    }
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage');
  });
});
