import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import { exportRows, EXPORT_COLUMNS } from '../../app/services/ledger-export.server';
import { grantSignupCredits, purchaseTopUp, reserve, reverseRefund, post, voidHold } from '../../app/services/ledger.server';
import { bulkPurchases, createUser, ownDatabase } from '../support/ledger';
import { verifyLedger } from '../../app/services/ledger-verify.server';

// A modest size here (the benchmark streams 1,000,000 rows and measures RSS).
const ROWS = 100_000;
let db: Sql;
let userA: { id: string; email: string };
let userB: { id: string; email: string };

/** Counts lines and keeps the first few and the last one, without holding the stream. */
class LineCounter extends Writable {
  lines = 0;
  first: string[] = [];
  last = '';
  private tail = '';
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    const text = this.tail + chunk.toString('utf8');
    const parts = text.split('\n');
    this.tail = parts.pop()!;
    for (const line of parts) {
      this.lines++;
      if (this.first.length < 3) this.first.push(line);
      this.last = line;
    }
    done();
  }
}

beforeAll(async () => {
  ({ db } = await ownDatabase(4));
  userA = await createUser(db, 'export-a');
  userB = await createUser(db, 'export-b');
  await grantSignupCredits(userA.id, db);
  await reserve(userA.id, [{ key: 'exp-item', amount: 2 }], db);
  await post('exp-item', db);
  await bulkPurchases(db, userB.id, ROWS - 3);
}, 60_000);
afterAll(() => db.end());

describe('ledger export', () => {
  it(`streams all ${ROWS} rows as CSV with a manifest of the same rows`, async () => {
    const out = new LineCounter();
    const manifest = await exportRows(out, {}, undefined, db);
    expect(out.lines).toBe(ROWS + 1);
    expect(out.first[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(out.first[1]).toMatch(
      new RegExp(
        `^\\d+,[0-9a-f-]{36},\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z,${userA.id},${userA.email},monthly_grant,system:issuance,user:monthly,5,5,,`,
      ),
    );
    expect(manifest.rows).toBe(ROWS);
    expect(manifest.sumsByKind).toEqual({ monthly_grant: 5, reserve: 2, post: 2, topup_purchase: ROWS - 3 });
    const [last] = await db<
      { seq: string; hash: string }[]
    >`SELECT seq, encode(hash, 'hex') AS hash FROM ledger_entries ORDER BY seq DESC LIMIT 1`;
    expect(manifest.lastSeq).toBe(Number(last!.seq));
    expect(manifest.lastHash).toBe(last!.hash);
    // The hash, then the eight Stripe columns (empty: these rows are not from Stripe).
    expect(out.last.endsWith(`,${last!.hash},,,,,,,,`)).toBe(true);
    // The fixture rows are sound books: the whole ledger verifies.
    expect((await verifyLedger({}, db)).problems).toEqual([]);
  }, 60_000);

  it('filters by user and time', async () => {
    const out = new LineCounter();
    const manifest = await exportRows(out, { userId: userA.id }, undefined, db);
    expect(manifest.rows).toBe(3);
    expect(out.lines).toBe(4);
    expect(out.first[2]).toContain(',reserve,user:monthly,system:consumed,2,3,,exp-item,reserve:exp-item,');
    const future = await exportRows(new LineCounter(), { from: new Date(Date.now() + 3600_000) }, undefined, db);
    expect(future.rows).toBe(0);
    expect(future.lastHash).toBeNull();
  });

  it('reads as an auditor who never read our code would: skip reserve and void rows, sum the rest per account, get the balances', async () => {
    const userC = await createUser(db, 'export-auditor');
    await grantSignupCredits(userC.id, db); // 5 monthly credits
    await purchaseTopUp(userC.id, 'cs_audit', 100, { checkoutSession: 'cs_audit', currency: 'usd', amountMinor: 3000 }, db);
    await reverseRefund(
      {
        kind: 'topup',
        userId: userC.id,
        ref: 'cs_audit',
        refundedMinor: 1000,
        credits: 34,
        origin: { checkoutSession: 'cs_audit', charge: 'ch_audit', currency: 'usd', amountMinor: 1000 },
      },
      db,
    );
    await reserve(userC.id, [{ key: 'audit-posted', amount: 2 }], db);
    await post('audit-posted', db);
    await reserve(userC.id, [{ key: 'audit-voided', amount: 1 }], db);
    await voidHold('audit-voided', db);
    await reserve(userC.id, [{ key: 'audit-open', amount: 1 }], db);

    const chunks: Buffer[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, done) => (chunks.push(c), done()) });
    await exportRows(sink, { userId: userC.id }, undefined, db);
    const rows = parse(Buffer.concat(chunks).toString('utf8'), { columns: true, strict: true } as never) as Record<string, string>[];

    // The reading rule docs/finance.md gives: a reserve is a hold (not yet a movement), a void lifts it; every
    // other row (a post settles its reserve) moves `amount` from from_account to to_account.
    const posted = new Map<string, number>();
    for (const r of rows) {
      if (r.kind === 'reserve' || r.kind === 'void') continue;
      const amount = Number(r.amount);
      posted.set(r.from_account!, (posted.get(r.from_account!) ?? 0) - amount);
      posted.set(r.to_account!, (posted.get(r.to_account!) ?? 0) + amount);
    }
    // Open holds: reserves no post or void names in pending_seq.
    const settled = new Set(rows.filter((r) => r.kind === 'post' || r.kind === 'void').map((r) => r.pending_seq));
    const held = rows.filter((r) => r.kind === 'reserve' && !settled.has(r.seq)).reduce((n, r) => n + Number(r.amount), 0);

    const accounts = await db<{ code: string; posted: string; pending: string }[]>`
      SELECT code, credits_posted - debits_posted AS posted, debits_pending AS pending FROM ledger_accounts WHERE user_id = ${userC.id}`;
    for (const a of accounts) expect(posted.get(`user:${a.code}`) ?? 0).toBe(Number(a.posted));
    expect(held).toBe(accounts.reduce((n, a) => n + Number(a.pending), 0));
    // 5 − 2 spent = 3 monthly; 100 − 34 refunded = 66 top-up; 1 on hold: 68 available.
    expect([posted.get('user:monthly'), posted.get('user:topup'), held]).toEqual([3, 66, 1]);
    const [summary] = await db<{ available: string }[]>`
      SELECT sum(credits_posted - debits_posted - debits_pending) AS available FROM ledger_accounts WHERE user_id = ${userC.id}`;
    expect(posted.get('user:monthly')! + posted.get('user:topup')! - held).toBe(Number(summary!.available));
    // Every row with money carries its currency.
    for (const r of rows.filter((x) => x.amount_minor !== '')) expect(r.currency).toBe('usd');
  });
});
