import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { clientKey, hit, maxFor } from '../../app/services/rate-limit.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient, uploadFile } from '../support/input-tools';

// CSV uploads (the JSON API and the page form without JavaScript) are limited per user and per
// client address, like the other abuse limits: each parse costs a worker thread up to seconds.

let app: TestApp;
const previousTrustProxy = process.env.TRUST_PROXY;
beforeAll(async () => {
  // Each test's client speaks from an address of its own (X-Forwarded-For from the loopback proxy).
  process.env.TRUST_PROXY = 'loopback';
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  if (previousTrustProxy === undefined) delete process.env.TRUST_PROXY;
  else process.env.TRUST_PROXY = previousTrustProxy;
});

let ipCounter = 0;
const uniqueIp = () => `198.51.100.${++ipCounter}`;

async function clientFrom(ip: string, label: string) {
  const user = await makeUser(label);
  const client = await signedInClient(app.url, user.id);
  Object.assign(client.defaults, { 'x-forwarded-for': ip });
  return { user, client };
}

const CSV = 'topic_or_keyword\nGreen tea\n';
const draftsOf = async (userId: string) => (await sql`SELECT 1 FROM topic_drafts WHERE user_id = ${userId}`).length;

/** The toast carried by the flash cookie (signed: value.signature, the value base64 JSON). */
function toastOf(c: TestClient): { type: string; title: string; description?: string } | null {
  const raw = c.cookies.get('toast');
  if (!raw) return null;
  const signed = decodeURIComponent(raw);
  return JSON.parse(Buffer.from(signed.slice(0, signed.lastIndexOf('.')), 'base64').toString('utf8'));
}

describe('CSV upload limits', () => {
  it('answers 429 with Retry-After and a translated message past the per-user limit; another user is not affected', async () => {
    const { client } = await clientFrom(uniqueIp(), 'csv-limit');
    const max = maxFor('csvUser');
    for (let i = 0; i < max; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, max - i) }, () => uploadFile(client, '/api/upload-csv', CSV)));
      for (const res of batch) expect(res.status).toBe(200);
    }
    const over = await uploadFile(client, '/api/upload-csv', CSV);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await over.json()).error).toMatch(/^Too many attempts\. Try again in \d+ minutes?\.$/);
    const zh = await uploadFile(client, '/api/upload-csv', CSV, 'topics.csv', 'text/csv', {
      cookie: `${client.cookieHeader()}; language=zh-HK`,
    });
    expect(zh.status).toBe(429);
    expect((await zh.json()).error).toMatch(/^嘗試次數過多，請於 \d+ 分鐘後再試。$/);

    const other = await clientFrom(uniqueIp(), 'csv-limit-other');
    expect((await uploadFile(other.client, '/api/upload-csv', CSV)).status).toBe(200);
  });

  it('counts the page form and the API together, and the form says so in a toast without storing the topics', async () => {
    const { user, client } = await clientFrom(uniqueIp(), 'csv-limit-form');
    for (let i = 0; i < maxFor('csvUser'); i++) await hit('csvUser', user.id);
    const res = await uploadFile(client, '/app/csv', CSV);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/app?input=csv');
    expect(toastOf(client)).toMatchObject({
      type: 'error',
      title: 'Upload Failed',
      description: expect.stringMatching(/^Too many attempts/),
    });
    expect(await draftsOf(user.id)).toBe(0);
  });

  it('limits a client address across users', async () => {
    const ip = uniqueIp();
    for (let i = 0; i < maxFor('csvIp'); i++) await hit('csvIp', clientKey(ip));
    const { client } = await clientFrom(ip, 'csv-limit-ip');
    const res = await uploadFile(client, '/api/upload-csv', CSV);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const elsewhere = await clientFrom(uniqueIp(), 'csv-limit-ip-other');
    expect((await uploadFile(elsewhere.client, '/api/upload-csv', CSV)).status).toBe(200);
  });
});
