import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Sql } from '../../db/client';
import { freshDatabase } from '../support/database';
import { createGenUser, openHolds, statusCounts } from '../support/generation';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { signIn, startAppProcess, startTextRun, type AppProcess } from '../support/app-processes';

// SIGTERM while provider calls are in flight (a provider that does not answer: four
// generation items and a title request) ends the compiled server within the documented grace
// period with exit 0, its unfinished items handed back (lease released at once, hold still open)
// for another worker, nothing charged or lost.

let openai: OpenAiServer;
let db: Sql;
let url: string;
const procs: AppProcess[] = [];

beforeAll(async () => {
  openai = await startOpenAiServer({ script: () => ({ kind: 'hang' }) });
  url = await freshDatabase(inject('clusterUrl'), 'pf_sigterm_gen');
  db = connect(url, 2);
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  await openai?.close();
  await db?.end();
});

describe('SIGTERM with provider calls in flight', () => {
  it('exits 0 within the grace period and hands the unfinished items back', async () => {
    const env = {
      OPENROUTER_BASE_URL: openai.url,
      OPENROUTER_API_KEY: 'sk-operator',
      GENERATION_CONCURRENCY: '4',
      GENERATION_CONCURRENCY_PER_USER: '8',
      LOG_LEVEL: 'info',
    };
    const app = await startAppProcess('all', { databaseUrl: url, env });
    procs.push(app);
    await app.ready();
    const user = await createGenUser(db, { credits: 20 });
    const runId = await startTextRun(
      app,
      await signIn(db, user.id),
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((t) => `sigterm ${t}`),
    );
    // Four items at the provider (which never answers), four next in line.
    const until = Date.now() + 30_000;
    while (openai.requests.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(openai.requests.length).toBe(4);
    const cookie = await signIn(db, user.id);
    const title = fetch(`${app.url}/api/generate-blog-title`, {
      method: 'POST',
      headers: { cookie, origin: app.url, 'content-type': 'application/json' },
      body: JSON.stringify({ keywords: 'shutdown title', model: 'openai/gpt-4o-mini-search-preview' }),
    }).then(
      (r) => r.status,
      (e) => String(e),
    );
    while (openai.requests.length < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    // The title request waits on the provider too.
    expect(openai.requests.length).toBe(5);

    // Exit 0 is the proof of the bound: past the grace period the process exits 1 (it did, after
    // 25 s, while the title request waited for its provider's timeout).
    const code = await app.stop('SIGTERM');
    expect(code, app.output()).toBe(0);
    expect(app.output()).toContain('"msg":"stopped"');
    expect(app.output()).not.toMatch(/"level":50|"level":60/);
    // The request still waiting on its provider was cut off rather than holding the process.
    expect(await title).toMatch(/fetch failed/);

    // Nothing charged, nothing lost: every item is still processing with its hold open, and its
    // lease is released, so another worker takes it over at once.
    expect(await statusCounts(db, runId)).toEqual({ processing: 8 });
    expect(await openHolds(db, user.id)).toBe(8);
    const [{ leased }] = await db<{ leased: number }[]>`
      SELECT count(*)::int AS leased FROM generation_results WHERE run_id = ${runId} AND lease_until > now()`;
    expect(leased).toBe(0);
  }, 90_000);
});
