// `npm run bench:ledger`: the ledger's speed figures, in one run against one Postgres
// (its own embedded cluster, or DATABASE_URL's cluster when set; a fresh database either way).
//   1. reserve+post pairs/s with 8 concurrent clients, (a) across 1,000 users, (b) all on one user,
//      against the bare SQL of the same shape (INSERT + guarded UPDATE per transaction);
//   2. balance read time with 1 ledger row vs 1,000,000 rows for the user;
//   3. export rows/s and the exporting process's peak RSS for 1,000,000 rows.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type Sql } from '../../db/client';
import { getCreditSummary, grantSignupCredits, post, purchaseTopUp, reserve } from '../../app/services/ledger.server';
import { verifyLedger } from '../../app/services/ledger-verify.server';
import { freshDatabase, startTestCluster } from '../support/database';
import { bulkPurchases } from '../support/ledger-fixtures';

const CLIENTS = 8;
const USERS = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BIG = Number(process.env.BENCH_BIG_ROWS ?? 1_000_000);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `op` in CLIENTS loops for SECONDS; returns operations per second. */
async function drive(op: (client: number, n: number) => Promise<void>, seconds = SECONDS): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        await op(client, n);
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/**
 * Runs two workloads in alternating short rounds, so that load from elsewhere on the machine
 * falls on both alike; returns each one's operations per second.
 */
async function compare(
  a: (client: number, n: number) => Promise<void>,
  b: (client: number, n: number) => Promise<void>,
  rounds = 4,
): Promise<[number, number]> {
  let sumA = 0;
  let sumB = 0;
  for (let r = 0; r < rounds; r++) {
    sumA += await drive(a, SECONDS / rounds);
    sumB += await drive(b, SECONDS / rounds);
  }
  return [sumA / rounds, sumB / rounds];
}

/** Median µs per call of two readers, interleaved call by call (medians shrug off load spikes). */
async function timeReads(a: () => Promise<unknown>, b: () => Promise<unknown>, count = 3000): Promise<[number, number]> {
  for (let i = 0; i < 200; i++) await Promise.all([a(), b()]); // warm up
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < count; i++) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    await b();
    tb.push(performance.now() - t);
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]! * 1000;
  return [median(ta), median(tb)];
}

async function setupBaseline(sql: Sql, users: string[]) {
  await sql`CREATE TABLE bench_balances (user_id uuid PRIMARY KEY, posted bigint NOT NULL, pending bigint NOT NULL,
            CHECK (posted - pending >= 0))`;
  await sql`CREATE TABLE bench_entries (id bigserial PRIMARY KEY, user_id uuid NOT NULL, kind text NOT NULL, amount bigint NOT NULL,
            key text NOT NULL UNIQUE, created_at timestamptz NOT NULL DEFAULT now())`;
  await sql`INSERT INTO bench_balances SELECT unnest(${users}::uuid[]), 1000000000, 0`;
}

/** The bare SQL of the same shape: reserve = INSERT + guarded UPDATE; post = INSERT + UPDATE. */
async function baselinePair(sql: Sql, userId: string, key: string) {
  await sql.begin(async (tx) => {
    await tx`INSERT INTO bench_entries (user_id, kind, amount, key) VALUES (${userId}, 'reserve', 1, ${'r:' + key})`;
    const res = await tx`UPDATE bench_balances SET pending = pending + 1 WHERE user_id = ${userId} AND posted - pending >= 1`;
    if (res.count !== 1) throw new Error('Insufficient credits');
  });
  await sql.begin(async (tx) => {
    await tx`INSERT INTO bench_entries (user_id, kind, amount, key) VALUES (${userId}, 'post', 1, ${'p:' + key})`;
    await tx`UPDATE bench_balances SET pending = pending - 1, posted = posted - 1 WHERE user_id = ${userId}`;
  });
}

async function ledgerPair(sql: Sql, userId: string, key: string) {
  await reserve(userId, [{ key, amount: 1 }], sql);
  await post(key, sql);
}

/** Exports the user's rows in a child process (as the CLI would) and reports its rows/s and peak RSS. */
function exportInChild(url: string, userId: string): Promise<{ rows: number; seconds: number; maxRssMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/bench/ledger-export-child.ts', userId], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`export child exited ${code}`))));
  });
}

async function main() {
  const cluster = await startTestCluster();
  const url = await freshDatabase(cluster.url, 'pf_bench');
  const sql = connect(url, CLIENTS);
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  try {
    process.stderr.write(`setting up ${USERS} users…\n`);
    const users = (
      await sql<{ id: string }[]>`INSERT INTO users (email, name)
        SELECT 'bench-' || i || '@example.com', 'Bench ' || i FROM generate_series(1, ${USERS}) i RETURNING id`
    ).map((r) => r.id);
    for (const id of users) {
      await grantSignupCredits(id, sql);
      await purchaseTopUp(id, `bench-${id}`, 1_000_000_000, undefined, sql);
    }
    await setupBaseline(sql, users);
    const one = users[0]!;

    process.stderr.write(`measuring ${SECONDS}s per scenario…\n`);
    let k = 0;
    const [baseAcross, ledgerAcross] = await compare(
      (c, n) => baselinePair(sql, users[(c * 7919 + n + k) % USERS]!, `ba:${k++}`),
      (c, n) => ledgerPair(sql, users[(c * 7919 + n + k) % USERS]!, `la:${k++}`),
    );
    const [baseOne, ledgerOne] = await compare(
      () => baselinePair(sql, one, `bo:${k++}`),
      () => ledgerPair(sql, one, `lo:${k++}`),
    );

    process.stderr.write(`writing ${fmt(BIG)} rows for one user…\n`);
    const [small] = await sql<{ id: string }[]>`INSERT INTO users (email, name) VALUES ('bench-small@example.com', 'Small') RETURNING id`;
    const [big] = await sql<{ id: string }[]>`INSERT INTO users (email, name) VALUES ('bench-big@example.com', 'Big') RETURNING id`;
    await grantSignupCredits(small!.id, sql);
    for (let done = 0; done < BIG; done += 100_000) {
      await bulkPurchases(sql, big!.id, Math.min(100_000, BIG - done), `bench${done}`);
    }
    await sql`VACUUM ANALYZE ledger_entries`;
    await sql`VACUUM ANALYZE ledger_accounts`;
    const [readSmall, readBig] = await timeReads(
      () => getCreditSummary(small!.id, sql),
      () => getCreditSummary(big!.id, sql),
    );
    const [{ n: bigRows }] = (await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM ledger_entries WHERE user_id = ${big!.id}`) as unknown as [{ n: number }];

    process.stderr.write('exporting…\n');
    const exp = await exportInChild(url, big!.id);
    process.stderr.write('verifying…\n');
    const verifyStart = performance.now();
    const report = await verifyLedger({}, sql);
    const verifySeconds = (performance.now() - verifyStart) / 1000;

    const rows: [string, string, string, string][] = [
      [
        'reserve+post pairs/s, 8 clients, 1,000 users',
        fmt(ledgerAcross),
        fmt(baseAcross),
        `${fmt((ledgerAcross / baseAcross) * 100)} % (goal ≥ 50 %)`,
      ],
      ['reserve+post pairs/s, 8 clients, one user', fmt(ledgerOne), fmt(baseOne), `${fmt((ledgerOne / baseOne) * 100)} %`],
      [
        `balance read (median µs), ${fmt(bigRows)} rows vs 1 row`,
        `${fmt(readBig, 1)}`,
        `${fmt(readSmall, 1)}`,
        `${fmt(readBig / readSmall, 2)}× (goal ≤ 1.5×)`,
      ],
      [
        `export of ${fmt(exp.rows)} rows`,
        `${fmt(exp.rows / exp.seconds)} rows/s`,
        `peak RSS ${fmt(exp.maxRssMb)} MB`,
        'goal ≥ 100,000 rows/s, < 200 MB',
      ],
      [
        `verify of all ${fmt(report.rows)} rows`,
        `${fmt(verifySeconds, 1)} s`,
        report.ok ? 'OK' : `${report.problems.length} problems`,
        `${fmt(report.rows / verifySeconds)} rows/s`,
      ],
    ];
    const header: [string, string, string, string] = ['measure', 'ledger', 'baseline / reference', 'ratio'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) => '| ' + r.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
    console.log(line(header));
    console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
    for (const r of rows) console.log(line(r));
  } finally {
    await sql.end();
    await cluster.stop();
  }
}

await main();
