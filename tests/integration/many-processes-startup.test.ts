import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { createDatabase } from '../../db/embedded';
import { migrationFiles } from '../../db/migrate';
import { queues } from '../../app/queue/queues';
import { startAppProcess, type AppProcess, type Role } from '../support/app-processes';

// Copies of the compiled server started at the same moment on a fresh database all
// become ready. Schema work (our migrations, pg-boss's install, its queues) runs once under one
// advisory lock; before it did, two processes creating pg-boss's queues together deadlocked
// (40P01 at Manager.createQueue) and one of them exited.

const ROUNDS = 5;
const ROLES: Role[] = ['all', 'web', 'worker', 'worker'];
const running: AppProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
});

describe('many processes starting together', () => {
  it(`${ROLES.length} processes (${ROLES.join(', ')}) at once on a fresh database, ${ROUNDS} times: all ready, schema work done once`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const url = await createDatabase(inject('clusterUrl'), `pf_start_${round}_${Date.now().toString(36)}`);
      const procs = await Promise.all(ROLES.map((role) => startAppProcess(role, { databaseUrl: url })));
      running.push(...procs);
      // A process that exits (the deadlock) or never gets ready fails the round with its log.
      await Promise.all(procs.map((p) => p.ready()));
      for (const p of procs) expect(await (await fetch(`${p.url}/readyz`)).text()).toBe('ready');
      const sql: Sql = connect(url, 1);
      try {
        const applied = await sql<{ name: string }[]>`SELECT name FROM schema_migrations ORDER BY name`;
        expect(applied.map((r) => r.name)).toEqual(migrationFiles());
        const made = await sql<{ name: string }[]>`SELECT name FROM pgboss.queue`;
        expect(made.map((r) => r.name)).toEqual(expect.arrayContaining(Object.keys(queues)));
      } finally {
        await sql.end();
      }
      // A worker serves its health checks only.
      const worker = procs.find((p) => p.role === 'worker')!;
      expect((await fetch(`${worker.url}/app`)).status).toBe(404);
      const codes = await Promise.all(procs.map((p) => p.stop('SIGTERM')));
      expect(codes, procs.map((p) => p.output()).join('\n')).toEqual(ROLES.map(() => 0));
      for (const p of procs) expect(p.output()).not.toMatch(/deadlock|"level":50|"level":60/);
    }
  }, 240_000);
});
