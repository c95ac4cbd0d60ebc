import type postgresType from 'postgres';

// Run in a process of its own by tests/integration/postgres-driver.test.ts, so that a driver fault
// escaping as an uncaught exception takes down this child and not the test runner. Each round
// kills the backend of a transaction while its query runs, as a failover or pg_terminate_backend
// does, with another query waiting for the pool's only connection. The transaction must reject
// with a connection error; the waiting query, and the next one, must get their answers; and the
// process must live on. Prints one JSON line of what it saw.

// POSTGRES_MODULE: another copy of the driver (the test's unpatched one); the installed one by default.
const postgres = ((await import(process.env.POSTGRES_MODULE ?? 'postgres')) as { default: typeof postgresType }).default;
const url = process.env.DATABASE_URL!;
const rounds = Number(process.env.ROUNDS ?? 5);
// One connection: the waiting query and the next one reuse the connection whose backend died.
const sql = postgres(url, { max: 1, onnotice: () => {} });
const killer = postgres(url, { max: 1, onnotice: () => {} });

const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ ok: true, value: v }),
    (err: { code?: string; message?: string }) => ({ ok: false, code: err?.code ?? String(err?.message) }),
  );

const seen: { transaction: unknown; waiting: unknown; next: unknown }[] = [];
for (let round = 0; round < rounds; round++) {
  let pid: number | null = null;
  const transaction = outcome(
    sql.begin(async (t) => {
      const [row] = await t<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      pid = row!.pid;
      await t`SELECT pg_sleep(5)`;
    }),
  );
  while (pid === null) await new Promise((r) => setTimeout(r, 5));
  const waiting = outcome(sql<{ n: number }[]>`SELECT ${round}::int AS n`.then((r) => r[0]!.n));
  await killer`SELECT pg_terminate_backend(${pid})`;
  const t = await transaction;
  const w = await waiting;
  const n = await outcome(sql<{ n: number }[]>`SELECT ${round + 100}::int AS n`.then((r) => r[0]!.n));
  seen.push({ transaction: t, waiting: w, next: n });
}
// Anything scheduled for a later turn of the loop runs before the process says it survived.
await new Promise((r) => setTimeout(r, 100));
console.log(JSON.stringify({ survived: true, seen }));
await Promise.all([sql.end({ timeout: 1 }), killer.end({ timeout: 1 })]);
