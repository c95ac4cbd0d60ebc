import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimSql, closeSql, getClaimSql, getJobSql, getSql, jobSql, sql } from '../../db/client';
import { resetEnv } from '../../app/runtime/env.server';

// The web pool (`sql`) and the job workers' pool (`jobSql`) are separate, each sized by its setting.
const saved = { web: process.env.DATABASE_POOL_MAX, jobs: process.env.JOBS_POOL_MAX };
beforeAll(async () => {
  await closeSql();
  process.env.DATABASE_POOL_MAX = '3';
  process.env.JOBS_POOL_MAX = '2';
  resetEnv();
});
afterAll(async () => {
  await closeSql();
  for (const [name, value] of [
    ['DATABASE_POOL_MAX', saved.web],
    ['JOBS_POOL_MAX', saved.jobs],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnv();
});

describe('database pools', () => {
  it('are two pools, sized by DATABASE_POOL_MAX and JOBS_POOL_MAX, named in pg_stat_activity', async () => {
    expect(getSql()).not.toBe(getJobSql());
    expect(getSql().options.max).toBe(3);
    expect(getJobSql().options.max).toBe(2);
    const [web] = await sql<{ name: string }[]>`SELECT current_setting('application_name') AS name`;
    const [jobs] = await jobSql<{ name: string }[]>`SELECT current_setting('application_name') AS name`;
    expect(web!.name).toBe('postforge-web');
    expect(jobs!.name).toBe('postforge-jobs');
  });

  it("the generation loop's claims have one connection of their own, free while every job connection is busy", async () => {
    expect(getClaimSql()).not.toBe(getJobSql());
    expect(getClaimSql().options.max).toBe(1);
    const busy = await Promise.all([getJobSql().reserve(), getJobSql().reserve()]);
    try {
      const [claim] = await claimSql<{ name: string }[]>`SELECT current_setting('application_name') AS name`;
      expect(claim!.name).toBe('postforge-claim');
    } finally {
      for (const conn of busy) conn.release();
    }
  });

  it('a jobs pool with every connection busy leaves the web pool serving', async () => {
    const busy = await Promise.all([getJobSql().reserve(), getJobSql().reserve()]);
    try {
      // Every job connection is taken (a third would queue); the web pool answers regardless.
      const [row] = await sql<{ one: number }[]>`SELECT 1 AS one`;
      expect(row!.one).toBe(1);
      const [count] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'postforge-jobs' AND datname = current_database()`;
      expect(count!.n).toBeGreaterThanOrEqual(2);
    } finally {
      for (const conn of busy) conn.release();
    }
  });
});
