import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../../db/client';
import { freshDatabase } from '../support/database';
import { createGenUser } from '../support/generation';
import { signIn, startAppProcess, type AppProcess } from '../support/app-processes';

// On the compiled server: a web process whose request line is full answers 503 with
// Retry-After at once (here no request may wait: REQUEST_QUEUE_MAX=0), never a 500, and serves
// again once the burst is over. The line's rules themselves are unit-tested in take-turns.test.ts.

let web: AppProcess;
let cookie: string;

beforeAll(async () => {
  const url = await freshDatabase(inject('clusterUrl'), 'pf_overload');
  const db = connect(url, 1);
  try {
    cookie = await signIn(db, (await createGenUser(db, { label: 'busy' })).id);
  } finally {
    await db.end();
  }
  web = await startAppProcess('web', { databaseUrl: url, env: { REQUEST_QUEUE_MAX: '0' } });
  await web.ready();
}, 60_000);

afterAll(async () => {
  await web?.stop('SIGKILL');
});

describe('a web process with a full request line', () => {
  it('answers 503 with Retry-After and a translated page, then serves again', async () => {
    const BURST = 60;
    const answers = await Promise.all(
      Array.from({ length: BURST }, () =>
        // A signed-in page: its loaders wait on the database, so requests overlap.
        fetch(`${web.url}/app`, { headers: { cookie, 'accept-language': 'zh-HK' } }).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: await r.text(),
        })),
      ),
    );
    const busy = answers.filter((a) => a.status === 503);
    // Four turns at once and none may wait: of sixty signed-in pages asked together, many are
    // refused (25 to 34 in trial runs), none fails.
    expect(busy.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    for (const a of busy) {
      expect(a.retryAfter).toMatch(/^\d+$/);
      expect(a.body).toContain('Postforge 目前太繁忙，請過幾秒再試。');
    }
    // The health checks never wait in the line, and the process serves once the burst is over.
    expect((await fetch(`${web.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${web.url}/app`, { headers: { cookie } })).status).toBe(200);
  }, 60_000);
});
