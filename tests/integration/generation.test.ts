import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startReplicateServer, type ReplicateServer } from '../support/replicate-server';
import { errorStatus } from '../../app/http/errors.server';
import { available, createGenUser, openHolds, statusCounts, waitForRun } from '../support/generation';

// Service-level generation tests: the real loop in this process, real Postgres, the provider test
// servers. (HTTP routes and owner checks: generation-api.test.ts; a killed worker: generation-crash.test.ts.)

let openai: OpenAiServer;
let replicate: ReplicateServer;
type Services = {
  gen: typeof import('../../app/services/generation/start.server') &
    typeof import('../../app/services/generation/cancel.server') &
    typeof import('../../app/services/generation/progress.server');
  rules: typeof import('../../app/services/generation/rules.server');
  results: typeof import('../../app/services/results.server');
  retry: typeof import('../../app/services/generation/retry.server');
  keys: typeof import('../../app/services/api-keys.server');
  loop: typeof import('../../jobs/generation-loop');
  verify: typeof import('../../app/services/ledger-verify.server');
  schema: typeof import('../../app/utils/generation-schema');
};
let s: Services;
let loop: Awaited<ReturnType<Services['loop']['startGenerationLoop']>>;

const TEXT = 'openai/gpt-4o-mini-search-preview';
const PRO_TEXT = 'anthropic/claude-3.7-sonnet';

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 20 });
  replicate = await startReplicateServer({ latencyMs: 20 });
  // The settings are read once per process: set them before the services first read them.
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    REPLICATE_BASE_URL: replicate.url,
    GENERATION_CONCURRENCY: '20',
    GENERATION_CONCURRENCY_PER_USER: '5',
    GENERATION_PROVIDER_ATTEMPTS: '3',
    GENERATION_PROVIDER_TIMEOUT_SECONDS: '2',
  });
  delete process.env.OPENROUTER_API_KEY;
  delete process.env.REPLICATE_API_TOKEN;
  s = {
    gen: {
      ...(await import('../../app/services/generation/start.server')),
      ...(await import('../../app/services/generation/cancel.server')),
      ...(await import('../../app/services/generation/progress.server')),
    },
    rules: await import('../../app/services/generation/rules.server'),
    results: await import('../../app/services/results.server'),
    retry: await import('../../app/services/generation/retry.server'),
    keys: await import('../../app/services/api-keys.server'),
    loop: await import('../../jobs/generation-loop'),
    verify: await import('../../app/services/ledger-verify.server'),
    schema: await import('../../app/utils/generation-schema'),
  };
  loop = await s.loop.startGenerationLoop();
});

afterAll(async () => {
  await loop?.stop();
  await openai?.close();
  await replicate?.close();
});

async function userWithKeys(opts: Parameters<typeof createGenUser>[1] = {}) {
  const u = await createGenUser(getSql(), opts);
  await s.keys.saveApiKeys(u.id, { openRouterApiKey: 'sk-test-text', replicateApiKey: 'r8-test-image' });
  return u;
}

const textInput = (prompts: string, extra: Record<string, unknown> = {}) =>
  s.schema.textGenerationSchema().parse({ prompts, model: TEXT, ...extra });

describe('a run of text items', () => {
  it(
    '50 items with 20 % failures: exactly the failures are refunded, the rest charged once, the ledger verifies',
    { timeout: 120_000 },
    async () => {
      const u = await userWithKeys({ credits: 60 });
      const before = await available(getSql(), u.id);
      const topics = Array.from({ length: 50 }, (_, i) => `fifty topic ${i}`);
      const failing = new Set(topics.filter((_, i) => i % 5 === 0)); // 10 of 50
      openai.setScript((req) => {
        if (failing.has(req.topic)) return { kind: 'status', status: 400, message: `Model refused ${req.topic}` };
        // A transient 429 (Retry-After honoured) and a 500 before success still end completed.
        if (req.topic === 'fifty topic 1' && req.attempt === 1) return { kind: 'status', status: 429, retryAfter: '0' };
        if (req.topic === 'fifty topic 2' && req.attempt === 1) return { kind: 'status', status: 500 };
        if (req.topic === 'fifty topic 3' && req.attempt === 1) return { kind: 'malformed' };
        return undefined;
      });
      const run = await s.gen.startRun(u.id, textInput(topics.join('\n')));
      expect(run.total).toBe(50);
      expect(await available(getSql(), u.id)).toBe(before - 50);
      await waitForRun(getSql(), run.runId);
      const failedRows = await sql`SELECT prompt, error FROM generation_results WHERE run_id = ${run.runId} AND status = 'failed'`;
      expect(failedRows.filter((f) => !failing.has(f.prompt as string))).toEqual([]);
      expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: 40, failed: 10 });
      expect(await available(getSql(), u.id)).toBe(before - 40);
      expect(await openHolds(getSql(), u.id)).toBe(0);
      const failed = await sql<{ prompt: string; error: string; errorCode: string; errorParams: unknown }[]>`
      SELECT prompt, error, error_code AS "errorCode", error_params AS "errorParams"
      FROM generation_results WHERE run_id = ${run.runId} AND status = 'failed'`;
      expect(new Set(failed.map((f) => f.prompt))).toEqual(failing);
      // A code and the provider's own words for the reader; the English text for operators.
      expect(failed[0]!.error).toMatch(/^400: Model refused/);
      expect(failed[0]).toMatchObject({
        errorCode: 'provider_refused',
        errorParams: { status: 400, detail: `Model refused ${failed[0]!.prompt}` },
      });
      expect(openai.attemptsOf('fifty topic 1')).toBe(2);
      const [posts] = await sql<{ post: number; void: number }[]>`
      SELECT count(*) FILTER (WHERE kind = 'post')::int AS post, count(*) FILTER (WHERE kind = 'void')::int AS void
      FROM ledger_entries WHERE user_id = ${u.id}`;
      expect(posts).toEqual({ post: 40, void: 10 });
      const progress = await s.gen.getRunProgress(u.id, run.runId);
      expect(progress).toMatchObject({ totalPrompts: 50, completedPrompts: 40, failedPrompts: 10, status: 'completed' });
      // Search (title, prompt, text) with paging: 'fifty topic 4' and 'fifty topic 40'…'49'.
      const found = await s.results.listResults(u.id, { search: 'FIFTY topic 4', limit: 5, page: 9 });
      expect(found.pagination).toEqual({ page: 3, limit: 5, total: 11, totalPages: 3 });
      expect(found.results).toHaveLength(1);
      expect((await s.results.listResults(u.id, { search: 'practical guide', type: 'text', limit: 100 })).pagination.total).toBe(40);
      expect((await s.results.listResults(u.id, { search: '100%_', limit: 5 })).pagination.total).toBe(0);
      const all = await s.results.listResults(u.id, { limit: 20 });
      expect(all.pagination).toEqual({ page: 1, limit: 20, total: 50, totalPages: 3 });
      // Within a run, topic order.
      expect(all.results[0]!.prompt).toBe('fifty topic 0');
      const report = await s.verify.verifyLedger({ userId: u.id });
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
      // Every setting reached the provider, as the catalogue's defaults.
      const req = openai.requests.find((r) => r.topic === 'fifty topic 4')!;
      expect(req.temperature).toBe(0.7);
      expect(req.max_tokens).toBe(1700);
      expect(req.authorization).toBe('Bearer sk-test-text');
      expect(req.messages[1]!.content).toContain('Language: English (US)');
      openai.setScript(undefined);
    },
  );

  it('a job delivered twice is charged once and generated once', async () => {
    const u = await userWithKeys({ credits: 5 });
    const before = await available(getSql(), u.id);
    const run = await s.gen.startRun(u.id, textInput('twice topic'));
    // A second delivery of the same item's job (pg-boss may redeliver).
    const { enqueueMany } = await import('../../app/queue/boss');
    await enqueueMany('generate-item', [{ payload: { resultId: run.resultIds[0]!, userId: u.id, attempt: 1 } }]);
    loop.wake();
    await waitForRun(getSql(), run.runId);
    await new Promise((r) => setTimeout(r, 500));
    expect(await available(getSql(), u.id)).toBe(before - 1);
    const entries = await sql<
      { kind: string }[]
    >`SELECT kind FROM ledger_entries WHERE user_id = ${u.id} AND kind IN ('reserve', 'post', 'void')`;
    expect(entries.map((e) => e.kind).sort()).toEqual(['post', 'reserve']);
    // And processItem itself is idempotent: the same claim again changes nothing.
    const again = await (
      await import('../../app/services/generation/process.server')
    ).processItem({
      jobId: 'x',
      resultId: run.resultIds[0]!,
      userId: u.id,
      attempt: 1,
      leased: true,
      deliveries: 1,
    });
    expect(again).toBe('skipped');
    expect(openai.attemptsOf('twice topic')).toBe(1);
  });

  it('never has more than GENERATION_CONCURRENCY_PER_USER items of one user in flight', async () => {
    const u = await userWithKeys({ credits: 30 });
    const before = openai.maxInFlight();
    expect(before).toBeLessThanOrEqual(5);
    openai.setLatency(150);
    const run = await s.gen.startRun(u.id, textInput(Array.from({ length: 25 }, (_, i) => `cap topic ${i}`).join('\n')));
    await waitForRun(getSql(), run.runId);
    openai.setLatency(20);
    expect(openai.maxInFlight()).toBe(5);
  });

  it("interleaves users: a second user's single item is claimed with the next free slot during a 500-item run", async () => {
    const a = await userWithKeys({ credits: 500 });
    const b = await userWithKeys({ credits: 5 });
    openai.setLatency(30);
    const big = await s.gen.startRun(a.id, textInput(Array.from({ length: 500 }, (_, i) => `big run ${i}`).join('\n')));
    // Wait until the big run is under way, then B asks for one item.
    while (openai.requests.filter((r) => r.topic.startsWith('big run')).length < 20) await new Promise((r) => setTimeout(r, 20));
    const small = await s.gen.startRun(b.id, textInput('the single topic'));
    // Claims are ordered (started_on is taken under the claim lock): count A's items claimed by now.
    const startedOf = (userId: string) => sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'generate-item' AND data->>'userId' = ${userId} AND started_on IS NOT NULL`;
    const [{ n: atCommit }] = (await startedOf(a.id)) as unknown as [{ n: number }];
    await waitForRun(getSql(), small.runId, 60_000);
    const [{ n: aBeforeB }] = (await sql`
      SELECT count(*)::int AS n FROM pgboss.job ja, pgboss.job jb
      WHERE ja.name = 'generate-item' AND jb.name = 'generate-item' AND ja.data->>'userId' = ${a.id}
        AND jb.data->>'resultId' = ${small.resultIds[0]!} AND ja.started_on < jb.started_on`) as unknown as [{ n: number }];
    // B's item went out with the next claim after its commit: at most one claim (≤ 5 of A's, the
    // per-user cap) was already under way. Without the fairness priority it would wait for ~480 more.
    expect(aBeforeB).toBeLessThanOrEqual(atCommit + 5);
    expect(atCommit).toBeLessThan(450);
    await waitForRun(getSql(), big.runId, 240_000);
    openai.setLatency(20);
    expect(await statusCounts(getSql(), big.runId)).toEqual({ completed: 500 });
  }, 300_000);
});

describe('starting a run is refused, with nothing written', () => {
  async function rowsOf(userId: string) {
    const [r] = await sql<{ runs: number; results: number; entries: number }[]>`
      SELECT (SELECT count(*)::int FROM generation_runs WHERE user_id = ${userId}) AS runs,
             (SELECT count(*)::int FROM generation_results WHERE user_id = ${userId}) AS results,
             (SELECT count(*)::int FROM ledger_entries WHERE user_id = ${userId} AND kind = 'reserve') AS entries`;
    return r;
  }

  it('insufficient credits: 402 and no run, result, hold or job', async () => {
    const u = await userWithKeys({ credits: 3 });
    const credits = await available(getSql(), u.id);
    const jobsBefore = await sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'generate-item'`;
    const err = await s.gen
      .startRun(u.id, textInput(Array.from({ length: credits + 1 }, (_, i) => `short ${i}`).join('\n')))
      .catch((e) => e);
    expect(err).toBeInstanceOf(s.rules.GenerationError);
    expect(err.code).toBe('insufficient_credits');
    // The HTTP edge answers it with 402 (app/http/errors.server.ts).
    expect(errorStatus(err)).toBe(402);
    expect(err.message).toBe('Insufficient credits. Please upgrade your plan.');
    expect(await rowsOf(u.id)).toEqual({ runs: 0, results: 0, entries: 0 });
    const jobsAfter = await sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'generate-item'`;
    expect(jobsAfter[0]!.n).toBe(jobsBefore[0]!.n);
  });

  it('a Free user cannot use a Pro model', async () => {
    const u = await userWithKeys({ status: 'free', credits: 10 });
    const err = await s.gen.startRun(u.id, textInput('pro topic', { model: PRO_TEXT })).catch((e) => e);
    expect(err.code).toBe('pro_only');
    expect(err.message).toMatch(/^Free users can only use /);
    expect(await rowsOf(u.id)).toEqual({ runs: 0, results: 0, entries: 0 });
    // The default model is fine for them.
    const ok = await s.gen.startRun(u.id, textInput('free topic'));
    await waitForRun(getSql(), ok.runId);
  });

  it("no provider key (neither the user's nor the operator's): the message, nothing reserved", async () => {
    const u = await createGenUser(getSql(), { credits: 10 });
    const err = await s.gen.startRun(u.id, textInput('keyless topic')).catch((e) => e);
    expect(err.code).toBe('no_api_key');
    expect(err.message).toBe('Failed to start text generation. Please check your API keys.');
    expect(await rowsOf(u.id)).toEqual({ runs: 0, results: 0, entries: 0 });
  });

  it('bounds: 1,000 topics and 500 characters a topic', () => {
    const schema = s.schema.textGenerationSchema();
    const many = Array.from({ length: 1001 }, (_, i) => `t${i}`).join('\n');
    expect(schema.safeParse({ prompts: many, model: TEXT }).error?.issues[0]?.message).toBe('validation.tooManyTopics');
    expect(schema.safeParse({ prompts: many.split('\n').slice(0, 1000).join('\n'), model: TEXT }).success).toBe(true);
    expect(schema.safeParse({ prompts: 'x'.repeat(501), model: TEXT }).error?.issues[0]?.message).toBe('validation.topicTooLong');
    expect(schema.safeParse({ prompts: 'x'.repeat(500), model: TEXT }).success).toBe(true);
    expect(schema.safeParse({ prompts: ' \n \n', model: TEXT }).error?.issues[0]?.message).toBe('validation.noValidTopics');
    expect(schema.safeParse({ prompts: '', model: TEXT }).error?.issues[0]?.message).toBe('validation.promptsRequired');
    expect(schema.safeParse({ prompts: 'a', model: '' }).error?.issues[0]?.message).toBe('validation.modelRequired');
  });
});

describe('cancel, retry and scripts', () => {
  it('cancel: items not yet started end canceled and their holds are voided', { timeout: 120_000 }, async () => {
    const u = await userWithKeys({ credits: 60 });
    const before = await available(getSql(), u.id);
    openai.setLatency(400);
    const run = await s.gen.startRun(u.id, textInput(Array.from({ length: 40 }, (_, i) => `cancel topic ${i}`).join('\n')));
    while ((await statusCounts(getSql(), run.runId)).completed === undefined) await new Promise((r) => setTimeout(r, 50));
    const progress = await s.gen.cancelRun(u.id, run.runId);
    expect(progress.canceledPrompts).toBeGreaterThan(20);
    await waitForRun(getSql(), run.runId);
    openai.setLatency(20);
    const counts = await statusCounts(getSql(), run.runId);
    expect((counts.completed ?? 0) + (counts.canceled ?? 0)).toBe(40);
    expect(await available(getSql(), u.id)).toBe(before - (counts.completed ?? 0));
    expect(await openHolds(getSql(), u.id)).toBe(0);
    expect((await s.gen.getRunProgress(u.id, run.runId)).status).toBe('canceled');
    // A canceled item can be retried: a new hold, then charged once.
    const one = (
      await sql<{ id: string }[]>`SELECT id FROM generation_results WHERE run_id = ${run.runId} AND status = 'canceled' LIMIT 1`
    )[0]!;
    await s.retry.retryResult(u.id, one.id);
    await waitForRun(getSql(), run.runId);
    expect((await s.results.getResult(u.id, one.id)).status).toBe('completed');
    expect(await available(getSql(), u.id)).toBe(before - (counts.completed ?? 0) - 1);
    expect(await openHolds(getSql(), u.id)).toBe(0);
  });

  it('script and event-handler payloads in topics and in provider output are neutralized', async () => {
    const u = await userWithKeys({ credits: 5 });
    const evil = '<img src=x onerror=alert(1)> hello';
    openai.setScript({
      [evil]: [
        {
          kind: 'ok',
          content:
            '# Title <script>alert(1)</script>\n\nText <script>alert(2)</script> and <a href="javascript:alert(3)" onclick="alert(4)">link</a> ' +
            '<img src="x" onerror="alert(5)"> [md](javascript:alert(6)) <iframe src="https://evil"></iframe>\n',
        },
      ],
    });
    const run = await s.gen.startRun(u.id, textInput(evil));
    await waitForRun(getSql(), run.runId);
    openai.setScript(undefined);
    const r = await s.results.getResult(u.id, run.resultIds[0]!);
    expect(r.status).toBe('completed');
    const html = `${r.title} ${r.content}`;
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:|<iframe/i);
    expect(r.content).toContain('link');
    // No broken image from `<img src="x">` (every view would request /x).
    expect(r.content).not.toMatch(/<img|src=/i);
    // An edit is sanitized again.
    const edited = await s.results.updateResultContent(
      u.id,
      r.id,
      '<p onclick="x()">ok</p><script>bad()</script><a href="javascript:x">y</a>',
    );
    // A link that is not absolute http(s) keeps its text in an inert <a>.
    expect(edited.content).toBe('<p>ok</p><a>y</a>');
  });

  it('image run: a non-English prompt is translated free of charge, bytes are kept in our table', async () => {
    const u = await userWithKeys({ credits: 5 });
    const before = await available(getSql(), u.id);
    openai.setScript((req) =>
      req.messages[0]!.content.startsWith('Translate') ? { kind: 'ok', content: 'A red fox in the snow' } : undefined,
    );
    const input = s.schema
      .imageGenerationSchema()
      .parse({ prompts: '雪地裡的紅狐狸', model: 'black-forest-labs/flux-schnell', numOutputs: 2, aspectRatio: '1:1' });
    const run = await s.gen.startRun(u.id, input);
    await waitForRun(getSql(), run.runId);
    openai.setScript(undefined);
    const r = await s.results.getResult(u.id, run.resultIds[0]!);
    expect(r.status).toBe('completed');
    expect(r.metadata.originalPrompt).toBe('雪地裡的紅狐狸');
    expect(r.metadata.translatedPrompt).toBe('A red fox in the snow');
    expect(r.metadata.imageUrls).toHaveLength(2);
    expect(r.content).toBe(r.metadata.imageUrls[0]);
    const sent = replicate.requests.find((q) => q.prompt === 'A red fox in the snow')!;
    expect(sent.input).toMatchObject({ aspect_ratio: '1:1', num_outputs: 2 });
    expect(sent.prefer).toMatch(/wait/);
    const image = await s.results.getImage(u.id, r.metadata.imageUrls[0]!.split('/').pop()!);
    expect(image.contentType).toBe('image/png');
    expect(image.bytes.subarray(1, 4).toString()).toBe('PNG');
    // One image topic costs its model's credits whatever numOutputs is.
    expect(await available(getSql(), u.id)).toBe(before - 1);
  });

  it("image failures end failed with a code and the provider's message, and are refunded", async () => {
    const u = await userWithKeys({ credits: 5 });
    const before = await available(getSql(), u.id);
    replicate.setScript({ 'broken picture': [{ kind: 'failed', error: 'NSFW content detected' }] });
    const run = await s.gen.startRun(
      u.id,
      s.schema.imageGenerationSchema().parse({ prompts: 'broken picture', model: 'black-forest-labs/flux-schnell' }),
    );
    await waitForRun(getSql(), run.runId);
    replicate.setScript(undefined);
    const r = await s.results.getResult(u.id, run.resultIds[0]!);
    expect(r).toMatchObject({ status: 'failed', errorCode: 'image_failed', errorParams: { detail: 'NSFW content detected' } });
    expect(await available(getSql(), u.id)).toBe(before);
  });
});
