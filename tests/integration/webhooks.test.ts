import crypto from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sql, transaction } from '../../db/client';
import { startBoss } from '../../app/queue/boss';
import { queues } from '../../app/queue/queues';
import { resetEnv } from '../../app/runtime/env.server';
import { seal } from '../../app/services/secrets.server';
import {
  createEndpoint,
  deleteEndpoint,
  deliverAttempt,
  emitEvent,
  enableEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  WebhookError,
} from '../../app/services/webhooks.server';
import { webhookEventTypes } from '../../app/utils/webhook-events';
import { handleWebhookDeliver } from '../../jobs/handlers/webhook-deliver';
import { createGenUser } from '../support/generation';
import { startPeer, type Peer } from '../support/http-peers';

// Signed outgoing webhooks against a real receiver (a node http server) that verifies every request
// with the standardwebhooks package, as a customer's would. The webhook-deliver queue runs in real
// pg-boss; retries are driven fast by WEBHOOK_RETRY_BASE_SECONDS (0.2 s, doubling).
vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
  process.env.WEBHOOK_RETRY_BASE_SECONDS = '0.2';
});

type Received = { id: string; timestamp: string; body: string; verified: boolean; type: string; answered: number; path: string };

let receiver: Peer;
const received: Received[] = [];
/** The secret each path's endpoint verifies with (set when the endpoint is created or rotated). */
const secrets = new Map<string, string>();
/** How many first attempts of each event a path answers 500. */
const failFirst = new Map<string, number>();

function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    let verified = false;
    try {
      new Webhook(secrets.get(path) ?? 'whsec_AAAA').verify(body, headers);
      verified = true;
    } catch {
      verified = false;
    }
    const earlier = received.filter((r) => r.id === headers['webhook-id'] && r.path === path).length;
    const answered = !verified ? 401 : earlier < (failFirst.get(path) ?? 0) ? 500 : 200;
    received.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      body,
      verified,
      type: (JSON.parse(body) as { type: string }).type,
      answered,
      path,
    });
    res.writeHead(answered, { 'content-type': 'text/plain' });
    res.end(answered === 200 ? 'ok' : 'no');
  });
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function endpointFor(userId: string, path: string, events = [...webhookEventTypes]) {
  const { id, secret } = await createEndpoint(userId, { url: `${receiver.url}${path}`, events });
  secrets.set(path, secret);
  return { id, secret };
}

beforeAll(async () => {
  receiver = await startPeer(handle);
  const boss = await startBoss('worker');
  const { workers: _, ...work } = queues['webhook-deliver'].work as (typeof queues)['webhook-deliver']['work'] & { workers?: number };
  await boss.work('webhook-deliver', work, handleWebhookDeliver);
});
afterAll(async () => {
  await receiver?.close();
});

describe('delivery', () => {
  it('signs every attempt, keeps the event id across retries, and retries until the receiver accepts', async () => {
    const user = await createGenUser(sql, { label: 'hooks' });
    const { secret } = await endpointFor(user.id, '/retry');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    failFirst.set('/retry', 2);
    const types = ['result.completed', 'result.failed', 'run.completed'] as const;
    await transaction(sql, async (tx) => {
      for (const type of types) await emitEvent(user.id, type, { resultId: `r-${type}` }, `test:${type}:${user.id}`, tx);
    });
    const events = await sql<{ id: string; type: string }[]>`SELECT id, type FROM webhook_events WHERE user_id = ${user.id}`;
    expect(events).toHaveLength(3);
    await waitFor(async () => {
      const rows = await sql`SELECT 1 FROM webhook_deliveries WHERE user_id = ${user.id} AND status = 'delivered'`;
      return rows.length === 3;
    });
    for (const event of events) {
      const attempts = received.filter((r) => r.id === event.id);
      // Two 500s, then accepted: three attempts, every one signed validly, the same id each time.
      expect(attempts.map((a) => a.answered)).toEqual([500, 500, 200]);
      expect(attempts.every((a) => a.verified)).toBe(true);
      expect(attempts.every((a) => a.type === event.type)).toBe(true);
      const body = JSON.parse(attempts[2]!.body) as { type: string; data: unknown; timestamp: string };
      expect(body.type).toBe(event.type);
    }
    const [endpoint] = await listEndpoints(user.id);
    expect(endpoint!.deliveries).toHaveLength(3);
    for (const d of endpoint!.deliveries) {
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatus: 200, nextAttemptAt: null });
      expect(d.lastLatencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(endpoint!.failingSince).toBeNull();
  });

  it('writes a fact once (dedupe key), nothing without a subscribed endpoint, and only to endpoints that chose the type', async () => {
    const user = await createGenUser(sql, { label: 'hooks-filter' });
    await transaction(sql, (tx) => emitEvent(user.id, 'credits.low', { available: 1 }, undefined, tx));
    expect(await sql`SELECT 1 FROM webhook_events WHERE user_id = ${user.id}`).toHaveLength(0);
    await endpointFor(user.id, '/only-runs', ['run.completed']);
    await transaction(sql, async (tx) => {
      await emitEvent(user.id, 'run.completed', { runId: 'a' }, `run.completed:dedupe:${user.id}`, tx);
      await emitEvent(user.id, 'run.completed', { runId: 'a' }, `run.completed:dedupe:${user.id}`, tx);
      await emitEvent(user.id, 'credits.low', { available: 1 }, undefined, tx);
    });
    const events = await sql<{ type: string }[]>`SELECT type FROM webhook_events WHERE user_id = ${user.id}`;
    expect(events.map((e) => e.type)).toEqual(['run.completed']);
    // A rolled-back change writes no event (the outbox is in its transaction).
    await transaction(sql, async (tx) => {
      await emitEvent(user.id, 'run.completed', { runId: 'b' }, `run.completed:rollback:${user.id}`, tx);
      throw new Error('rolled back');
    }).catch(() => {});
    expect(await sql`SELECT 1 FROM webhook_events WHERE user_id = ${user.id}`).toHaveLength(1);
    await waitFor(() => received.some((r) => r.path === '/only-runs' && r.answered === 200));
    expect(received.filter((r) => r.path === '/only-runs')).toHaveLength(1);
  });

  it('sends a test event on demand, and signs with the new secret after a rotation', async () => {
    const user = await createGenUser(sql, { label: 'hooks-rotate' });
    const { id, secret: first } = await endpointFor(user.id, '/rotate', ['credits.low']);
    const { eventId } = await sendTestEvent(user.id, id);
    const got = await waitFor(() => received.find((r) => r.id === eventId));
    expect(got).toMatchObject({ verified: true, type: 'webhook.test', answered: 200 });
    const { secret: second } = await rotateSecret(user.id, id);
    expect(second).not.toBe(first);
    secrets.set('/rotate', second);
    const { eventId: again } = await sendTestEvent(user.id, id);
    const after = await waitFor(() => received.find((r) => r.id === again));
    expect(after.verified).toBe(true);
    expect(() =>
      new Webhook(first).verify(after.body, { 'webhook-id': after.id, 'webhook-timestamp': after.timestamp, 'webhook-signature': 'v1,x' }),
    ).toThrow();
  });

  it('scopes endpoints to their owner', async () => {
    const owner = await createGenUser(sql, { label: 'hooks-owner' });
    const other = await createGenUser(sql, { label: 'hooks-other' });
    const { id } = await endpointFor(owner.id, '/owned', ['credits.low']);
    for (const act of [
      () => deleteEndpoint(other.id, id),
      () => rotateSecret(other.id, id),
      () => sendTestEvent(other.id, id),
      () => enableEndpoint(other.id, id),
    ]) {
      await expect(act()).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(await listEndpoints(other.id)).toEqual([]);
    await deleteEndpoint(owner.id, id);
    expect(await listEndpoints(owner.id)).toEqual([]);
  });

  it('turns off an endpoint failing for 3 days, e-mails its owner once, and can turn it on again', async () => {
    const user = await createGenUser(sql, { label: 'hooks-dead' });
    const { id } = await endpointFor(user.id, '/dead', ['credits.low']);
    failFirst.set('/dead', 1000);
    await sql`UPDATE webhook_endpoints SET failing_since = now() - interval '3 days 1 minute' WHERE id = ${id}`;
    await transaction(sql, (tx) => emitEvent(user.id, 'credits.low', { available: 3 }, undefined, tx));
    await waitFor(async () => {
      const [row] = await sql<{ enabled: boolean }[]>`SELECT enabled FROM webhook_endpoints WHERE id = ${id}`;
      return row && !row.enabled;
    });
    const [delivery] = await sql<{ status: string; nextAttemptAt: Date | null }[]>`
      SELECT status, next_attempt_at AS "nextAttemptAt" FROM webhook_deliveries WHERE endpoint_id = ${id}`;
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    const mails = await sql<{ data: { template: string; to: string; params: { url: string } } }[]>`
      SELECT data FROM pgboss.job WHERE name = 'send-email' AND data->>'to' = ${user.email}`;
    expect(mails).toHaveLength(1);
    expect(mails[0]!.data.template).toBe('webhook-disabled');
    expect(mails[0]!.data.params.url).toBe(`${receiver.url}/dead`);
    // A disabled endpoint gets no new events.
    await transaction(sql, (tx) => emitEvent(user.id, 'credits.low', { available: 2 }, undefined, tx));
    expect(await sql`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ${id}`).toHaveLength(1);
    await enableEndpoint(user.id, id);
    failFirst.set('/dead', 0);
    await transaction(sql, (tx) => emitEvent(user.id, 'credits.low', { available: 1 }, undefined, tx));
    await waitFor(
      async () => (await sql`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ${id} AND status = 'delivered'`).length === 1,
    );
  });

  it('a replayed attempt job does nothing once its attempt was made', async () => {
    const user = await createGenUser(sql, { label: 'hooks-replay' });
    await endpointFor(user.id, '/replay', ['credits.low']);
    await transaction(sql, (tx) => emitEvent(user.id, 'credits.low', { available: 1 }, undefined, tx));
    const [d] = await waitFor(async () => {
      const rows = await sql<{ id: string }[]>`SELECT id FROM webhook_deliveries WHERE user_id = ${user.id} AND status = 'delivered'`;
      return rows.length ? rows : null;
    });
    expect(await deliverAttempt(d!.id, 1)).toBe('skipped');
    expect(received.filter((r) => r.path === '/replay')).toHaveLength(1);
  });
  it('a run canceled before its items started ends with one run.completed (status canceled)', async () => {
    const { saveApiKeys } = await import('../../app/services/api-keys.server');
    const { startRun } = await import('../../app/services/generation/start.server');
    const { cancelRun } = await import('../../app/services/generation/cancel.server');
    const { textGenerationSchema } = await import('../../app/utils/generation-schema');
    const user = await createGenUser(sql, { label: 'hooks-cancel', credits: 30 });
    await saveApiKeys(user.id, { openRouterApiKey: 'sk-test-text' });
    await endpointFor(user.id, '/cancel', ['run.completed']);
    // No generation loop runs in this file: the items wait, and the cancel ends them all.
    const run = await startRun(
      user.id,
      textGenerationSchema().parse({ prompts: 'cancel one\ncancel two\ncancel three', model: 'openai/gpt-4o-mini-search-preview' }),
    );
    expect((await cancelRun(user.id, run.runId)).status).toBe('canceled');
    await cancelRun(user.id, run.runId);
    const got = await waitFor(() => received.find((r) => r.path === '/cancel' && r.answered === 200));
    expect(JSON.parse(got.body)).toMatchObject({
      type: 'run.completed',
      data: { runId: run.runId, status: 'canceled', total: 3, canceled: 3 },
    });
    expect(await sql`SELECT 1 FROM webhook_events WHERE user_id = ${user.id}`).toHaveLength(1);
  });
});

describe('the SSRF guard (ALLOW_PRIVATE_HOSTS off)', () => {
  beforeAll(() => {
    process.env.ALLOW_PRIVATE_HOSTS = 'false';
    resetEnv();
  });
  afterAll(() => {
    process.env.ALLOW_PRIVATE_HOSTS = 'true';
    resetEnv();
  });

  it('refuses private, loopback and metadata URLs at save', async () => {
    const user = await createGenUser(sql, { label: 'hooks-ssrf' });
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://localhost/',
      // By name, whether or not the name resolves: the trailing-dot forms and *.localhost.
      'http://localhost.:9/',
      'http://LocalHost./hook',
      'http://hooks.localhost/',
      'https://Hooks.LOCALHOST./x',
      'ftp://example.com/',
    ]) {
      const error = await createEndpoint(user.id, { url, events: ['credits.low'] }).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(WebhookError);
      expect((error as WebhookError).code).toBe('blocked_url');
      // Why, as a key of its own (never the guard's English message).
      expect((error as WebhookError).key, url).toBe(
        url.startsWith('ftp:') ? 'webhooks.errors.blocked.bad_scheme' : 'webhooks.errors.blocked.blocked_address',
      );
    }
    expect(await listEndpoints(user.id)).toEqual([]);
  });

  it('refuses them again at delivery (an endpoint saved before the rule changed)', async () => {
    const user = await createGenUser(sql, { label: 'hooks-ssrf-late' });
    const id = crypto.randomUUID();
    await sql`
      INSERT INTO webhook_endpoints (id, user_id, url, events, secret_sealed, secret_hint)
      VALUES (${id}, ${user.id}, ${`${receiver.url}/late`}, ARRAY['credits.low'], ${seal('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `webhook-secret:${id}`)}, 'AAAA')`;
    await transaction(sql, (tx) => emitEvent(user.id, 'credits.low', { available: 1 }, undefined, tx));
    const [delivery] = await sql<{ id: string }[]>`SELECT id FROM webhook_deliveries WHERE endpoint_id = ${id}`;
    await waitFor(async () => {
      const [d] = await sql<{ attempts: number; lastError: string | null; code: string | null }[]>`
        SELECT attempts, last_error AS "lastError", last_error_code AS code FROM webhook_deliveries WHERE id = ${delivery!.id}`;
      return d && d.attempts >= 1 ? d : null;
    }).then((d) => {
      // The code is what the page shows (translated); the English text is for operators.
      expect(d.code).toBe('blocked_address');
      expect(d.lastError).toMatch(/private or reserved/);
    });
    const [shown] = (await listEndpoints(user.id))[0]!.deliveries;
    expect(shown).toMatchObject({ lastErrorCode: 'blocked_address', lastErrorParams: null });
    expect(shown).not.toHaveProperty('lastError');
    expect(received.filter((r) => r.path === '/late')).toHaveLength(0);
  });
});
