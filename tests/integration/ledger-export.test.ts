import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import { exportRows, EXPORT_COLUMNS } from '../../app/services/ledger-export.server';
import { grantSignupCredits, reserve, post } from '../../app/services/ledger.server';
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
    // The hash, then the seven Stripe columns (empty: these rows are not from Stripe).
    expect(out.last.endsWith(`,${last!.hash},,,,,,,`)).toBe(true);
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
});
