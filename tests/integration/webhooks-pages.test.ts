import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';
import { startPeer, type Peer } from '../support/http-peers';

// The compiled app: /settings/webhooks as a browser without JavaScript uses it (plain form posts),
// in both languages; /api/openapi.json and /api/docs served publicly.
vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let app: TestApp;
let receiver: Peer;

beforeAll(async () => {
  app = await startTestApp();
  receiver = await startPeer((_req, res) => res.writeHead(204).end());
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

const PAGE = '/settings/webhooks';
const decode = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"');

async function form(client: TestClient, fields: Record<string, string>, extra: [string, string][] = []) {
  const body = new URLSearchParams(fields);
  for (const [k, v] of extra) body.append(k, v);
  return client.request(PAGE, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
}

describe('/settings/webhooks without JavaScript', () => {
  it('adds an endpoint and shows its secret once; lists it with its log; rotates, tests, deletes', async () => {
    const user = await makeUser('hooks-page', 'pro');
    const client = await signedInClient(app.url, user.id);
    const empty = await client.get(PAGE);
    expect(empty.status).toBe(200);
    expect(await empty.text()).toContain('No endpoints yet.');

    const created = await form(client, { intent: 'create', url: `${receiver.url}/in` }, [
      ['events', 'run.completed'],
      ['events', 'credits.low'],
    ]);
    expect(created.status).toBe(200);
    const html = decode(await created.text());
    const secret = /value="(whsec_[^"]+)"/.exec(html)?.[1];
    expect(secret).toMatch(/^whsec_/);
    expect(html).toContain('Copy the signing secret now');
    // Reached from the settings dialog, it leads back there (as the API tokens page does).
    expect(html).toMatch(/<a[^>]*href="\/app\?settings=1"[^>]*>Back to settings<\/a>/);
    // Stored sealed, never in the clear; the list shows only its last four characters.
    const [row] = await sql<{ id: string; secretSealed: string; events: string[] }[]>`
      SELECT id, secret_sealed AS "secretSealed", events FROM webhook_endpoints WHERE user_id = ${user.id}`;
    expect(row!.secretSealed).not.toContain(secret!.slice(6));
    expect(row!.events).toEqual(['run.completed', 'credits.low']);
    const listed = decode(await (await client.get(PAGE)).text());
    expect(listed).not.toContain(secret!);
    expect(listed).toContain(`…${secret!.slice(-4)}`);
    expect(listed).toContain(`${receiver.url}/in`);

    const rotated = await form(client, { intent: 'rotate', endpointId: row!.id });
    const second = /value="(whsec_[^"]+)"/.exec(decode(await rotated.text()))?.[1];
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(secret);

    const tested = await form(client, { intent: 'test', endpointId: row!.id });
    expect(tested.status).toBe(302);
    expect(tested.headers.get('location')).toBe(PAGE);
    const log = decode(await (await client.get(PAGE)).text());
    expect(log).toContain('webhook.test');
    expect(log).toMatch(/data-testid="webhook-log"/);

    // Another user cannot touch it.
    const other = await signedInClient(app.url, (await makeUser('hooks-page-other')).id);
    await form(other, { intent: 'delete', endpointId: row!.id });
    expect(await sql`SELECT 1 FROM webhook_endpoints WHERE id = ${row!.id}`).toHaveLength(1);

    const deleted = await form(client, { intent: 'delete', endpointId: row!.id });
    expect(deleted.status).toBe(302);
    expect(await sql`SELECT 1 FROM webhook_endpoints WHERE id = ${row!.id}`).toHaveLength(0);
  });

  it('explains bad input in the reader language and saves nothing', async () => {
    const user = await makeUser('hooks-page-bad', 'pro');
    const client = await signedInClient(app.url, user.id);
    const en = decode(await (await form(client, { intent: 'create', url: 'not a url' })).text());
    expect(en).toContain('Enter a valid http(s) URL');
    expect(en).toContain('Choose at least one event');
    client.cookies.set('language', 'zh-HK');
    const zh = await form(client, { intent: 'create', url: 'ftp://example.com/x' }, [['events', 'run.completed']]);
    expect(zh.status).toBe(400);
    expect(decode(await zh.text())).toContain('請輸入有效的 http(s) 網址');
    const page = decode(await (await client.get(PAGE)).text());
    expect(page).toContain('新增端點');
    expect(await sql`SELECT 1 FROM webhook_endpoints WHERE user_id = ${user.id}`).toHaveLength(0);
  });

  it('needs a session', async () => {
    const res = await new TestClient(app.url).get(PAGE);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).not.toContain(PAGE);
  });
});

describe('the API document', () => {
  it('/api/openapi.json is public and cacheable, with an ETag', async () => {
    const res = await fetch(`${app.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/public/);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/generate/text']).toBeDefined();
    const again = await fetch(`${app.url}/api/openapi.json`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('/api/docs is plain HTML (no script) in both languages', async () => {
    const en = await fetch(`${app.url}/api/docs`);
    expect(en.status).toBe(200);
    const html = await en.text();
    expect(html).toContain('Postforge API reference');
    expect(html).toContain('/api/generate/text');
    expect(html).toContain('run.completed');
    expect(html).not.toMatch(/<script/i);
    const zh = await (await fetch(`${app.url}/api/docs`, { headers: { 'accept-language': 'zh-HK' } })).text();
    expect(zh).toContain('Postforge API 參考');
    expect(zh).toContain('lang="zh-HK"');
  });
});
