import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { getT } from '../../app/i18n.server';
import { seal } from '../../app/services/secrets.server';
import { runPublication } from '../../app/services/wordpress/publish-job.server';
import type { Translate } from '../../app/utils/auth-schemas';
import { startTestApp, type TestApp, type TestClient } from '../support/app-server';
import { startPeer } from '../support/http-peers';
import { makeUser, signedInClient } from '../support/input-tools';

// A zh-HK reader meets every kind of failure in Chinese, on each page that shows one: the webhooks
// settings (a refused URL, a toast, the delivery log), API tokens, the publish page and the
// results. Each check names the English words the failure used to show (the catalogue's English,
// or the English stored for operators) and looks for them in the page.
vi.hoisted(() => {
  // The publish page's site is a closed port on this machine.
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
  // No worker runs here: the test runs the publication while the page waits for it.
  process.env.WORDPRESS_PUBLISH_WAIT_SECONDS = '15';
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const decode = (html: string) =>
  html
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"');

/** The page's HTML without its scripts (the catalogue travels inside one, with every text). */
const visible = async (res: Response) => decode((await res.text()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ''));

/** The toast carried by the flash cookie (signed: value.signature, the value base64 JSON). */
function toastOf(c: TestClient): { type: string; title: string; description?: string } | null {
  const raw = c.cookies.get('toast');
  if (!raw) return null;
  const signed = decodeURIComponent(raw);
  const value = signed.slice(0, signed.lastIndexOf('.'));
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as { type: string; title: string; description?: string };
}

async function zhClient(label: string) {
  const user = await makeUser(label, 'pro');
  const client = await signedInClient(app.url, user.id);
  client.cookies.set('language', 'zh-HK');
  return { user, client };
}

const texts = async (ns: 'developer' | 'tokens' | 'wordpress' | 'generation') =>
  [(await getT('en', ns)) as Translate, (await getT('zh-HK', ns)) as Translate] as const;

describe('a zh-HK reader reads failures in Chinese', () => {
  it('webhooks settings: a refused URL, a toast and the delivery log', async () => {
    const { user, client } = await zhClient('zh-hooks');
    const [en, zh] = await texts('developer');
    const form = (fields: [string, string][]) =>
      client.request('/settings/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });

    // A URL with credentials: the guard refuses it before any call (its message is English).
    const refused = await form([
      ['intent', 'create'],
      ['url', 'https://someone:secret@hooks.example.com/in'],
      ['events', 'run.completed'],
    ]);
    expect(refused.status).toBe(400);
    const page = await visible(refused);
    expect(page).toContain(zh('webhooks.errors.blocked.bad_url'));
    expect(page).not.toContain(en('webhooks.errors.blocked.bad_url'));
    expect(page).not.toContain('URLs with credentials are not allowed');

    // An endpoint that is not there: the toast.
    await form([
      ['intent', 'test'],
      ['endpointId', crypto.randomUUID()],
    ]);
    const toast = toastOf(client);
    expect(toast).toMatchObject({ type: 'error', title: zh('webhooks.toast.failed'), description: zh('webhooks.errors.not_found') });

    // The log: a coded failure, an answer outside 2xx, and a row stored before codes.
    const endpointId = crypto.randomUUID();
    await sql`
      INSERT INTO webhook_endpoints (id, user_id, url, events, secret_sealed, secret_hint)
      VALUES (${endpointId}, ${user.id}, 'https://hooks.example.com/in', ARRAY['run.completed'], 'sealed', 'AAAA')`;
    for (const [i, stored] of [
      { code: 'refused', text: 'The connection was refused' },
      { code: null, text: 'socket hang up while reading' },
    ].entries()) {
      const eventId = `msg_${crypto.randomUUID().replace(/-/g, '')}`;
      await sql`INSERT INTO webhook_events (id, user_id, type, payload) VALUES (${eventId}, ${user.id}, 'run.completed', '{}'::jsonb)`;
      await sql`
        INSERT INTO webhook_deliveries (event_id, endpoint_id, user_id, status, attempts, last_error, last_error_code, created_at)
        VALUES (${eventId}, ${endpointId}, ${user.id}, 'failed', 3, ${stored.text}, ${stored.code}, now() - make_interval(secs => ${i}))`;
    }
    const log = await visible(await client.get('/settings/webhooks'));
    expect(log).toContain(zh('outbound.refused'));
    expect(log).toContain(zh('webhooks.failures.unknown'));
    for (const english of ['The connection was refused', 'socket hang up', en('outbound.refused'), en('webhooks.failures.unknown')]) {
      expect(log).not.toContain(english);
    }
  });

  it('API tokens: one too many', async () => {
    const { user, client } = await zhClient('zh-tokens');
    const [en, zh] = await texts('tokens');
    await sql`
      INSERT INTO api_tokens (user_id, name, token_hash, last4)
      SELECT ${user.id}, 'token ' || n, md5(${user.id} || n), '0000' FROM generate_series(1, 50) n`;
    const res = await client.postForm('/settings/api-tokens', { name: 'One more' });
    expect(res.status).toBe(409);
    const page = await visible(res);
    expect(page).toContain(zh('errors.too_many', { max: 50 }));
    expect(page).not.toContain(en('errors.too_many', { max: 50 }));
  });

  it('the publish page: a site that refuses the connection', async () => {
    const { user, client } = await zhClient('zh-publish');
    const [en, zh] = await texts('wordpress');
    // A port nothing listens on any more.
    const peer = await startPeer((_req, res) => res.writeHead(204).end());
    const siteUrl = peer.url;
    await peer.close();
    const [site] = await sql<{ id: string }[]>`
      INSERT INTO wordpress_sites (user_id, site_url, site_name, username, app_password_sealed, is_default)
      VALUES (${user.id}, ${siteUrl}, 'Closed', 'editor', ${seal('abcd efgh ijkl mnop', `wordpress-app-password:${user.id}`)}, true)
      RETURNING id`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user.id}, 'text', 'm', 1) RETURNING id`;
    const [result] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
      VALUES (${user.id}, ${run!.id}, 0, 'text', 'Closed', 'Closed', '<p>Body</p>', 'completed', 'm', 1) RETURNING id`;
    const answer = client.postForm(`/app/publish/${result!.id}`, {
      siteId: site!.id,
      mode: 'now',
      tz: 'UTC',
      title: 'Closed',
      content: '<p>Body</p>',
      excerpt: '',
      tags: '',
    });
    // What the worker would do: run the publication the page queued (its failure is retried).
    for (let i = 0; i < 100; i++) {
      const [pub] = await sql<{ id: string }[]>`SELECT id FROM wordpress_publications WHERE user_id = ${user.id}`;
      if (pub) {
        await runPublication(pub.id).catch(() => null);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = await answer;
    expect(res.status).toBe(502);
    const page = await visible(res);
    expect(page).toContain(zh('diagnosis.refused'));
    const [stored] = await sql<{ lastError: string }[]>`
      SELECT last_error AS "lastError" FROM wordpress_publications WHERE user_id = ${user.id}`;
    for (const english of [stored!.lastError, en('diagnosis.refused')]) expect(page).not.toContain(english);
  });

  it('results: a failed item, on the page and through the API', async () => {
    const { user, client } = await zhClient('zh-results');
    const [en, zh] = await texts('generation');
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user.id}, 'text', 'm', 1) RETURNING id`;
    const [result] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, status, model, credits, error, error_code, error_params)
      VALUES (${user.id}, ${run!.id}, 0, 'text', 'Rate limited topic', 'failed', 'm', 1, '429: Provider error', 'provider_rate_limited',
        ${sql.json({ status: 429 })})
      RETURNING id`;
    const expected = zh('failures.provider_rate_limited', { status: 429 });
    const english = en('failures.provider_rate_limited', { status: 429 });
    const page = await visible(await client.get('/app?tab=results'));
    expect(page).toContain(expected);
    for (const text of [english, '429: Provider error']) expect(page).not.toContain(text);
    const api = await client.get(`/api/results/${result!.id}`, { 'accept-language': 'zh-HK' });
    const body = (await api.json()) as { errorCode: string; error: string };
    expect(body).toMatchObject({ errorCode: 'provider_rate_limited', error: expected });
  });
});
