import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { createApiToken } from '../../app/services/api-tokens.server';
import { canonicalJson } from '../../app/services/idempotency.server';
import { handleMaintenancePurge } from '../../jobs/handlers/maintenance';
import { available, createGenUser, openHolds } from '../support/generation';
import type { TestApp } from '../support/app-server';

// Idempotency-Key on the starting routes, against the compiled server (run
// `npm run build` first). No worker runs here: a run's holds stay open, so "one charge" is one hold.

let app: TestApp;
beforeAll(async () => {
  // No worker publishes here: a publish answers 202 (still queued) after a short wait.
  Object.assign(process.env, {
    OPENROUTER_API_KEY: 'sk-operator',
    REPLICATE_API_TOKEN: 'r8-operator',
    WORDPRESS_PUBLISH_WAIT_SECONDS: '1',
  });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const TEXT = 'openai/gpt-4o-mini-search-preview';

async function scriptUser(credits = 20) {
  const user = await createGenUser(getSql(), { credits, label: 'idem' });
  const { token } = await createApiToken(user.id, { name: 'idempotency', expiresAt: null });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(app.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return { ...user, post };
}

const runsOf = async (userId: string) =>
  (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_runs WHERE user_id = ${userId}`)[0]!.n;

describe('Idempotency-Key on POST /api/generate/text and /image', () => {
  it('10 identical requests at once: one run, one hold, every answer the same job id', async () => {
    const u = await scriptUser();
    const before = await available(getSql(), u.id);
    const key = crypto.randomUUID();
    const body = { prompts: 'winter soup', model: TEXT, readingLevel: '8th & 9th grade, easily understood' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => u.post('/api/generate/text', body, { 'Idempotency-Key': key })));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ jobId?: string; error?: string }>));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const jobIds = new Set(bodies.map((b) => b.jobId));
    expect(jobIds.size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(await runsOf(u.id)).toBe(1);
    expect(await openHolds(getSql(), u.id)).toBe(1);
    expect(await available(getSql(), u.id)).toBe(before - 1);

    // The same body with its keys in another order is the same request.
    const reordered = await u.post(
      '/api/generate/text',
      `{"readingLevel":"8th & 9th grade, easily understood","model":"${TEXT}","prompts":"winter soup"}`,
      {
        'Idempotency-Key': key,
      },
    );
    expect(reordered.status).toBe(200);
    expect(((await reordered.json()) as { jobId: string }).jobId).toBe([...jobIds][0]);

    // Another body with the key: 422, in the caller's language, and nothing started.
    const other = await u.post('/api/generate/text', { ...body, prompts: 'summer salad' }, { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({
      error: 'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
    });
    const otherZh = await u.post(
      '/api/generate/text',
      { ...body, prompts: 'summer salad' },
      { 'Idempotency-Key': key, 'Accept-Language': 'zh-HK' },
    );
    expect(((await otherZh.json()) as { error: string }).error).toBe('此 Idempotency-Key 已用於另一個不同的請求。新的請求請使用新的金鑰。');
    // The key on another route is another request too.
    const image = await u.post(
      '/api/generate/image',
      { prompts: 'winter soup', model: 'black-forest-labs/flux-schnell' },
      { 'Idempotency-Key': key },
    );
    expect(image.status).toBe(422);
    expect(await runsOf(u.id)).toBe(1);

    // After 24 hours the key is free again: a new run.
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE user_id = ${u.id} AND key = ${key}`;
    const later = await u.post('/api/generate/text', body, { 'Idempotency-Key': key });
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(((await later.json()) as { jobId: string }).jobId).not.toBe([...jobIds][0]);
    expect(await runsOf(u.id)).toBe(2);
  });

  it('without the header every request starts a run; a malformed key is a 400', async () => {
    const u = await scriptUser();
    const body = { prompts: 'a topic', model: TEXT };
    expect((await u.post('/api/generate/text', body)).status).toBe(200);
    expect((await u.post('/api/generate/text', body)).status).toBe(200);
    expect(await runsOf(u.id)).toBe(2);
    const bad = await u.post('/api/generate/text', body, { 'Idempotency-Key': 'x'.repeat(256) });
    expect(bad.status).toBe(400);
    expect(await runsOf(u.id)).toBe(2);
  });

  it('an error is not an answer: the key stays unused, and the retry after a top-up runs once', async () => {
    // A Pro account's credits come from paid invoices and top-ups: none yet.
    const u = await scriptUser(0);
    expect(await available(getSql(), u.id)).toBe(0);
    const key = crypto.randomUUID();
    const body = { prompts: 'one\ntwo\nthree', model: 'anthropic/claude-3.7-sonnet' };
    const first = await u.post('/api/generate/text', body, { 'Idempotency-Key': key });
    expect(first.status).toBe(402);
    expect(await sql`SELECT 1 FROM idempotency_keys WHERE user_id = ${u.id}`).toHaveLength(0);
    await sql`SELECT * FROM ledger_transfer(${u.id}, 'topup_purchase', ${`topup:test-${crypto.randomUUID()}`}, 50, 'test', NULL, NULL)`;
    const retried = await Promise.all([1, 2, 3].map(() => u.post('/api/generate/text', body, { 'Idempotency-Key': key })));
    expect(retried.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await runsOf(u.id)).toBe(1);
    expect(await openHolds(getSql(), u.id)).toBe(3);
  });

  it('the maintenance purge removes keys past 24 hours only', async () => {
    const u = await scriptUser();
    await sql`INSERT INTO idempotency_keys (user_id, key, fingerprint, status, body, created_at) VALUES
      (${u.id}, 'old', 'f', 200, '{}', now() - interval '25 hours'), (${u.id}, 'new', 'f', 200, '{}', now())`;
    await handleMaintenancePurge();
    const keys = await sql<{ key: string }[]>`SELECT key FROM idempotency_keys WHERE user_id = ${u.id}`;
    expect(keys.map((k) => k.key)).toEqual(['new']);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
  });
});

describe('Idempotency-Key on POST /api/wordpress/publish', () => {
  it('10 identical publishes at once queue one publication; another body is a 422', async () => {
    const u = await scriptUser();
    const [site] = await sql<{ id: string }[]>`
      INSERT INTO wordpress_sites (user_id, site_url, site_name, username, app_password_sealed, is_default)
      VALUES (${u.id}, 'https://blog.example.com', 'Blog', 'editor', 'sealed', true) RETURNING id`;
    const key = crypto.randomUUID();
    const body = { siteId: Number(site!.id), title: 'Hello', content: '<p>Hi</p>', status: 'draft' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => u.post('/api/wordpress/publish', body, { 'Idempotency-Key': key })));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(202));
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as { publicationId: string }).publicationId)));
    expect(ids.size).toBe(1);
    // Every answer but the first says it is a replay, as the generation routes' do.
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM wordpress_publications WHERE user_id = ${u.id}`;
    expect(count!.n).toBe(1);
    const again = await u.post('/api/wordpress/publish', body, { 'Idempotency-Key': key });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { publicationId: string }).publicationId).toBe([...ids][0]);
    const unkeyed = await u.post('/api/wordpress/publish', { ...body, title: 'Unkeyed' });
    expect(unkeyed.status).toBe(202);
    expect(unkeyed.headers.get('idempotent-replayed')).toBeNull();
    const other = await u.post('/api/wordpress/publish', { ...body, title: 'Other' }, { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
  });
});

describe('a request still in flight with the key', () => {
  it('is waited for, and answered busy (409 at the edge) when it takes longer than the wait', async () => {
    const { runOnce } = await import('../../app/services/idempotency.server');
    const u = await createGenUser(getSql(), { label: 'idem-busy' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const claimedNow = new Promise<void>((resolve) => (claimed = resolve));
    // The first request: its key row inserted, its work not done for a long while.
    const first = runOnce(u.id, 'slow', 'print', async () => {
      claimed();
      await held;
      return { status: 200, body: { jobId: 'first' } };
    });
    await claimedNow;
    const second = await runOnce(u.id, 'slow', 'print', async () => ({ status: 200, body: { jobId: 'second' } }));
    expect(second).toEqual({ kind: 'busy' });
    // Once the first is done, the same key answers its answer.
    const third = runOnce(u.id, 'slow', 'print', async () => ({ status: 200, body: { jobId: 'third' } }));
    release();
    expect(await first).toEqual({ kind: 'fresh', answer: { status: 200, body: { jobId: 'first' } } });
    expect(await third).toEqual({ kind: 'replayed', answer: { status: 200, body: { jobId: 'first' } } });
  });
});
