import type postgresType from 'postgres';

// Run in a process of its own by tests/integration/postgres-driver.test.ts, so that a driver fault
// escaping as an uncaught exception takes down this child and not the test runner. It kills
// backends the way a failover or pg_terminate_backend does, in one of two places (SCENARIO):
// - `transaction`: a transaction's query is running, and another query waits for the pool's only
//   connection. The transaction must reject with a connection error, and the waiting query and
//   the next one must get their answers.
// - `types`: a new connection's first step, the driver's query for the array types, is running.
//   The query that opened the connection must get its answer on the connection that follows.
// - `storm`: a pool's backends are terminated every few milliseconds while 8 clients query it.
//   Every answer must be the query's own row, or a connection error: never another's, never empty.
// The process must live on. Prints one JSON line of what it saw.

// POSTGRES_MODULE: another copy of the driver (the test's unpatched one); the installed one by default.
const postgres = ((await import(process.env.POSTGRES_MODULE ?? 'postgres')) as { default: typeof postgresType }).default;
const url = process.env.DATABASE_URL!;
const rounds = Number(process.env.ROUNDS ?? 4);
const options = { onnotice: () => {} };

type Outcome = { ok: true; value: unknown } | { ok: false; code: string };
const outcome = (p: Promise<unknown>): Promise<Outcome> =>
  p.then(
    (value) => ({ ok: true, value }),
    (err: { code?: string; message?: string }) => ({ ok: false, code: err?.code ?? String(err?.message) }),
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function transactionRounds() {
  // One connection: the waiting query and the next one reuse the connection whose backend died.
  const sql = postgres(url, { ...options, max: 1 });
  const killer = postgres(url, { ...options, max: 1 });
  const seen: { transaction: Outcome; waiting: Outcome; next: Outcome }[] = [];
  for (let round = 0; round < rounds; round++) {
    let pid: number | null = null;
    const transaction = outcome(
      sql.begin(async (t) => {
        const [row] = await t<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        pid = row!.pid;
        await t`SELECT pg_sleep(5)`;
      }),
    );
    while (pid === null) await sleep(5);
    const waiting = outcome(sql<{ n: number }[]>`SELECT ${round}::int AS n`.then((r) => r[0]!.n));
    await killer`SELECT pg_terminate_backend(${pid})`;
    seen.push({
      transaction: await transaction,
      waiting: await waiting,
      next: await outcome(sql`SELECT ${round + 100}::int AS n`.then((r) => r[0]!.n)),
    });
  }
  await Promise.all([sql.end({ timeout: 1 }), killer.end({ timeout: 1 })]);
  return seen;
}

async function typesRounds() {
  // The types query is held up by a lock on pg_type, then its backend is terminated. The locking
  // session is the only one that can read the catalogue meanwhile, so it also does the killing.
  const locker = postgres(url, { ...options, max: 1 });
  await locker`SELECT 1`;
  const seen: Outcome[] = [];
  for (let round = 0; round < rounds; round++) {
    // A new backend reads pg_type itself while it starts when the catalogue cache file was
    // invalidated (autovacuum on a catalogue does that): it then waits for the lock before it has
    // a name or a query, and the types query is never reached. Such a try is let go and made again.
    let got: Outcome | undefined;
    for (let attempt = 0; attempt < 5 && !got; attempt++) {
      // A short-lived session first: its start rebuilds that file if it is missing.
      const warm = postgres(url, { ...options, max: 1, fetch_types: false });
      await warm`SELECT 1`;
      await warm.end({ timeout: 1 });
      const name = `types-victim-${round}-${attempt}`;
      const fresh = postgres(url, { ...options, max: 1, connection: { application_name: name } });
      let first!: Promise<Outcome>;
      const killed = await locker.begin(async (t) => {
        await t`LOCK TABLE pg_catalog.pg_type IN ACCESS EXCLUSIVE MODE`;
        first = outcome(fresh<{ n: number }[]>`SELECT ${round}::int AS n`.then((r) => r[0]!.n));
        let blocked: { pid: number } | undefined;
        for (let i = 0; i < 120 && !blocked; i++) {
          await sleep(25);
          [blocked] = await t<{ pid: number }[]>`
            SELECT pid FROM pg_stat_activity
            WHERE application_name = ${name} AND wait_event_type = 'Lock' AND query LIKE '%typarray%'`;
        }
        if (!blocked) return false;
        await t`SELECT pg_terminate_backend(${blocked.pid})`;
        await sleep(100);
        return true;
      });
      const answer = await first;
      if (killed) got = answer;
      await fresh.end({ timeout: 1 });
    }
    if (!got) throw new Error('the types query was never seen waiting');
    seen.push(got);
  }
  await locker.end({ timeout: 1 });
  return seen;
}

async function storm() {
  const admin = postgres(url, { ...options, max: 1 });
  const pool = postgres(url, { ...options, max: 10, connection: { application_name: 'storm-victim' } });
  const tally = { right: 0, wrong: 0, failed: 0, kills: 0 };
  let done = false;
  const killer = (async () => {
    while (!done) {
      await sleep(20 + ((tally.kills * 37) % 80));
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'storm-victim'`;
      tally.kills++;
    }
  })();
  await Promise.all(
    Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; i < 20 * rounds; i++) {
        const n = c * 1000 + i;
        const got = await outcome(pool<{ n: number }[]>`SELECT ${n}::int AS n`.then((r) => r.map((x) => x.n)));
        if (!got.ok) tally.failed++;
        else if (JSON.stringify(got.value) === JSON.stringify([n])) tally.right++;
        else tally.wrong++;
      }
    }),
  );
  done = true;
  await killer;
  await Promise.all([pool.end({ timeout: 1 }), admin.end({ timeout: 1 })]);
  return [tally];
}

const scenario = process.env.SCENARIO;
const seen = scenario === 'types' ? await typesRounds() : scenario === 'storm' ? await storm() : await transactionRounds();
// Anything scheduled for a later turn of the loop runs before the process says it survived.
await sleep(100);
console.log(JSON.stringify({ survived: true, seen }));
