import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import postgres from 'postgres';
import { getSql, type Sql } from '../../db/client';
import { freshDatabase } from '../support/database';
import { createGenUser } from '../support/generation';

// The claim's plan on a queue that grew since the tables were last analyzed (as after a large
// start): it must read the queue in its fetch index's order and the leases and holds through their
// indexes, not sort the whole queue or scan every result and hold. The plans are read from
// auto_explain, nested statements included. Runs on a database of its own: it claims the jobs.

let s: {
  gen: typeof import('../../app/services/generation/start.server');
  claim: typeof import('../../app/services/generation/claim.server');
  schema: typeof import('../../app/utils/generation-schema');
};
let explained: Sql;
const plans: string[] = [];

beforeAll(async () => {
  const url = await freshDatabase(inject('clusterUrl'), 'pf_claim_plan');
  Object.assign(process.env, { DATABASE_URL: url, OPENROUTER_API_KEY: 'sk-operator', MAX_TOPICS_PER_RUN: '200' });
  s = {
    gen: await import('../../app/services/generation/start.server'),
    claim: await import('../../app/services/generation/claim.server'),
    schema: await import('../../app/utils/generation-schema'),
  };
  explained = postgres(url, { max: 1, onnotice: (n) => plans.push(String(n.message)) }) as unknown as Sql;
});

afterAll(async () => {
  await explained?.end();
});

describe("the claim's plan", () => {
  it('reads the queue in index order and the leases and holds by index, with statistics older than the queue', async () => {
    for (let u = 0; u < 8; u++) {
      const user = await createGenUser(getSql(), { credits: 160, label: 'plan' });
      const prompts = Array.from({ length: 150 }, (_, i) => `plan u${u} topic ${i}`).join('\n');
      await s.gen.startRun(user.id, s.schema.textGenerationSchema().parse({ prompts, model: 'openai/gpt-4o-mini-search-preview' }));
    }
    await s.claim.claimItems(40, 100, 600); // items in flight: leases to count
    await explained.unsafe(`LOAD 'auto_explain'`);
    await explained.unsafe(
      `SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log`,
    );
    const got = await s.claim.claimItems(2, 100, 600, [], [], {}, explained);
    expect(got).toHaveLength(2);

    const queue = plans.find((p) => p.includes('FROM pgboss.job j') && p.includes('busy'));
    expect(queue, plans.join('\n----\n')).toBeDefined();
    expect(queue).toMatch(/Index Scan using \S*name_priority_created_on_id_idx/);
    expect(queue).not.toMatch(/Sort Key: j\.priority/);
    expect(queue).toContain('generation_results_leased_idx');
    expect(queue).not.toMatch(/Seq Scan on generation_results/);
    // A bitmap scan never marks the dead leases it visits, so each claim would read them all again.
    expect(queue).not.toMatch(/Bitmap Heap Scan on generation_results/);
    const holds = plans.find((p) => p.includes('UPDATE ledger_open_holds'));
    expect(holds, plans.join('\n----\n')).toBeDefined();
    expect(holds).not.toMatch(/Seq Scan on ledger_open_holds/);
  });

  it("keeps the search index's pending list short, so no claim merges megabytes of it", async () => {
    // Every claim writes a new version of its item's row, adding its search text to the list; the
    // statement that fills the list merges it into the index while the claim's lock is held.
    const [row] = await getSql()<{ options: string[] | null }[]>`
      SELECT reloptions AS options FROM pg_class WHERE relname = 'generation_results_search_idx'`;
    expect(row?.options).toContain('gin_pending_list_limit=256');
  });
});
