import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import { getCreditSummary, grantSignupCredits, purchaseTopUp } from '../../app/services/ledger.server';
import { createUser, ownDatabase } from '../support/ledger';

// The CLI as an operator runs it, against a database of its own.
const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
let url: string;
let db: Sql;
let user: { id: string; email: string };

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, ['app/cli/ledger.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url, LEDGER_ACTOR: 'tester' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  ({ url, db } = await ownDatabase(2));
  user = await createUser(db, 'cli');
  await grantSignupCredits(user.id, db);
  await purchaseTopUp(user.id, 'cs_cli', 99, undefined, db);
});
afterAll(() => db.end());

describe('npm run ledger', () => {
  it('adjust books a correction with its reason and the operator', async () => {
    const res = await cli('adjust', '--user', user.email.toUpperCase(), '--amount', '7', '--reason', 'Goodwill credit');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Booked row \d+: adjustment of 7/);
    expect((await getCreditSummary(user.id, db)).creditsRemaining).toBe(12);
    const [row] = await db<{ reason: string; actor: string }[]>`
      SELECT reason, actor FROM ledger_entries WHERE user_id = ${user.id} AND kind = 'adjustment'`;
    expect(row).toEqual({ reason: 'Goodwill credit', actor: 'cli:tester' });
    const bad = await cli('adjust', '--user', user.email, '--amount', '-1000', '--reason', 'Too much');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Insufficient credits');
    const usage = await cli('adjust', '--user', user.email, '--amount', 'x', '--reason', 'r');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--amount');
  });

  it('role makes a user an admin and back', async () => {
    expect((await cli('role', '--user', user.email, '--role', 'admin')).code).toBe(0);
    expect((await db`SELECT role FROM users WHERE id = ${user.id}`)[0]!.role).toBe('admin');
    expect((await cli('role', '--user', user.email, '--role', 'user')).code).toBe(0);
    expect((await db`SELECT role FROM users WHERE id = ${user.id}`)[0]!.role).toBe('user');
    expect((await cli('role', '--user', user.email, '--role', 'root')).code).toBe(2);
  });

  it('export writes the CSV to stdout and the manifest to stderr', async () => {
    const res = await cli('export', '--user', user.email);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'seq,id,time,user_id,user_email,kind,from_account,to_account,amount,balance_after,pending_seq,external_ref,idempotency_key,hash,' +
        'currency,amount_minor,stripe_event_id,stripe_checkout_session_id,stripe_invoice_id,stripe_payment_intent_id,stripe_charge_id,' +
        'stripe_refund_id',
    );
    expect(lines.slice(1).map((l) => l.split(',')[5])).toEqual(['monthly_grant', 'topup_purchase', 'adjustment']);
    const manifest = JSON.parse(res.stderr);
    expect(manifest).toMatchObject({ rows: 3, sumsByKind: { monthly_grant: 5, topup_purchase: 99, adjustment: 7 } });
    expect(manifest.lastHash).toBe(lines.at(-1)!.split(',')[13]);
    expect((await cli('export', '--from', 'yesterday-ish')).code).toBe(2);
  });

  it('verify passes, then names the tampered row and exits non-zero', async () => {
    const ok = await cli('verify');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('OK');
    const [target] = await db<{ seq: string }[]>`SELECT seq FROM ledger_entries WHERE user_id = ${user.id} AND kind = 'topup_purchase'`;
    await db.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`UPDATE ledger_entries SET idempotency_key = 'topup:forged' WHERE seq = ${target!.seq}`;
    });
    const bad = await cli('verify');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`row ${target!.seq}: hash does not match`);
  });
});
