import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { available, createGenUser, waitForRun } from '../support/generation';
import { startWebhookReceiver, type Peer, type ReceivedEvent } from '../support/http-peers';

// The events where things happen: a real generation run (the loop in this process, the OpenAI-
// compatible test server) with 12 items finishing concurrently, some failing; its holds taking the
// balance below the low-credit threshold. A receiver verifies each delivery's signature.

let openai: OpenAiServer;
let receiver: Peer;
let secret = '';
const received: ReceivedEvent[] = [];

type Services = {
  gen: typeof import('../../app/services/generation/start.server');
  keys: typeof import('../../app/services/api-keys.server');
  loop: typeof import('../../jobs/generation-loop');
  schema: typeof import('../../app/utils/generation-schema');
  hooks: typeof import('../../app/services/webhooks.server');
};
let s: Services;
let loop: Awaited<ReturnType<Services['loop']['startGenerationLoop']>>;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 20 });
  receiver = await startWebhookReceiver(() => secret, received);
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    GENERATION_CONCURRENCY: '12',
    GENERATION_CONCURRENCY_PER_USER: '12',
    GENERATION_PROVIDER_ATTEMPTS: '1',
    ALLOW_PRIVATE_HOSTS: 'true',
    WEBHOOK_RETRY_BASE_SECONDS: '0.2',
  });
  s = {
    gen: await import('../../app/services/generation/start.server'),
    keys: await import('../../app/services/api-keys.server'),
    loop: await import('../../jobs/generation-loop'),
    schema: await import('../../app/utils/generation-schema'),
    hooks: await import('../../app/services/webhooks.server'),
  };
  const { startBoss } = await import('../../app/queue/boss');
  const { queues } = await import('../../app/queue/queues');
  const { handleWebhookDeliver } = await import('../../jobs/handlers/webhook-deliver');
  await (await startBoss('worker')).work('webhook-deliver', queues['webhook-deliver'].work, handleWebhookDeliver);
  loop = await s.loop.startGenerationLoop();
});

afterAll(async () => {
  await loop?.stop();
  await openai?.close();
  await receiver?.close();
});

async function settled(count: number, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (received.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
}

describe('generation events', () => {
  it('one result event per item, one run.completed with the counts, credits.low once when the holds cross the threshold', async () => {
    const u = await createGenUser(getSql(), { credits: 20 });
    await s.keys.saveApiKeys(u.id, { openRouterApiKey: 'sk-test-text', replicateApiKey: 'r8-test-image' });
    const balance = await available(getSql(), u.id);
    const created = await s.hooks.createEndpoint(u.id, {
      url: `${receiver.url}/hooks`,
      events: ['run.completed', 'result.completed', 'result.failed', 'credits.low'],
    });
    secret = created.secret;
    const topics = Array.from({ length: 12 }, (_, i) => `hook topic ${i}`);
    const failing = new Set(topics.filter((_, i) => i % 4 === 0)); // 3 of 12
    openai.setScript((req) => (failing.has(req.topic) ? { kind: 'status', status: 400, message: 'refused' } : undefined));
    // Holds take the balance from >= 10 to < 10 only if it started at 10..21 above the run's cost.
    expect(balance - 12).toBeLessThan(10);
    expect(balance).toBeGreaterThanOrEqual(10);
    const run = await s.gen.startRun(
      u.id,
      s.schema.textGenerationSchema().parse({ prompts: topics.join('\n'), model: 'openai/gpt-4o-mini-search-preview' }),
    );
    await waitForRun(getSql(), run.runId);
    // 12 result events + run.completed + credits.low.
    await settled(14);
    await new Promise((r) => setTimeout(r, 300));
    expect(received.every((r) => r.verified)).toBe(true);
    const byType = (type: string) => received.filter((r) => r.type === type);
    expect(byType('result.completed')).toHaveLength(9);
    expect(byType('result.failed')).toHaveLength(3);
    // A failure says why as the code the API gives (errorCode), beside an English text for logs;
    // the body is the one the API document describes.
    const { resultFailedEvent } = await import('../../app/http/api-document.server');
    const { GENERATION_FAILURES } = await import('../../app/utils/generation-errors');
    for (const event of byType('result.failed')) {
      const parsed = resultFailedEvent.parse({ type: event.type, timestamp: new Date().toISOString(), data: event.data });
      expect(GENERATION_FAILURES).toContain(parsed.data.errorCode);
      expect(parsed.data.error).toEqual(expect.any(String));
    }
    expect(new Set([...byType('result.completed'), ...byType('result.failed')].map((r) => r.data.resultId))).toEqual(
      new Set(run.resultIds),
    );
    expect(byType('run.completed')).toHaveLength(1);
    expect(byType('run.completed')[0]!.data).toMatchObject({ runId: run.runId, status: 'completed', total: 12, completed: 9, failed: 3 });
    expect(byType('credits.low')).toHaveLength(1);
    expect(byType('credits.low')[0]!.data).toMatchObject({ available: balance - 12, threshold: 10 });
    // Every event id is distinct (a retry would repeat one; none was needed here).
    expect(new Set(received.map((r) => r.id)).size).toBe(received.length);
    // A second run while already below the threshold does not warn again.
    const second = await s.gen.startRun(
      u.id,
      s.schema.textGenerationSchema().parse({ prompts: 'hook topic again', model: 'openai/gpt-4o-mini-search-preview' }),
    );
    await waitForRun(getSql(), second.runId);
    await settled(16);
    expect(byType('credits.low')).toHaveLength(1);
    expect(byType('run.completed').map((r) => r.data.runId)).toEqual([run.runId, second.runId]);
    openai.setScript(undefined);
    // Every delivery is recorded delivered (the record follows the receiver's answer).
    const until = Date.now() + 20_000;
    let open = Infinity;
    while (open > 0 && Date.now() < until) {
      open = (await sql`SELECT 1 FROM webhook_deliveries WHERE user_id = ${u.id} AND status <> 'delivered'`).length;
      if (open > 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(0);
  });
});
