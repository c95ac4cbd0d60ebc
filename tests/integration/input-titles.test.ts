import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { saveApiKeys } from '../../app/services/api-keys.server';
import { resetEnv } from '../../app/runtime/env.server';
import { hit } from '../../app/services/rate-limit.server';
import { parseTitles, titleLimit } from '../../app/services/titles.server';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';
import { startOpenAiServer, type ChatStep, type OpenAiServer } from '../support/openai-server';

let app: TestApp;
let provider: OpenAiServer;
let next: ChatStep = { kind: 'ok', content: '' };

beforeAll(async () => {
  provider = await startOpenAiServer({ script: () => next });
  process.env.OPENROUTER_BASE_URL = provider.url;
  delete process.env.OPENROUTER_API_KEY;
  resetEnv();
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await provider.close();
});
beforeEach(() => {
  next = { kind: 'ok', content: '' };
});

async function userWithKey(label: string, status: 'free' | 'pro' = 'free') {
  const user = await makeUser(label, status);
  await saveApiKeys(user.id, { openRouterApiKey: `sk-user-${label}` });
  return { user, client: await signedInClient(app.url, user.id) };
}

describe('parseTitles', () => {
  it('reads JSON, fenced JSON, JSON in prose, arrays of objects and numbered lines', () => {
    expect(parseTitles('{"titles": ["A", "B"]}', 2)).toEqual(['A', 'B']);
    expect(parseTitles('```json\n{"titles": ["“A”", "B"]}\n```', 2)).toEqual(['A', 'B']);
    expect(parseTitles('Sure! Here they are: ["A","B"] Enjoy.', 2)).toEqual(['A', 'B']);
    // Not one title per keyword: refused, not cut to size.
    expect(parseTitles('Sure! Here they are: ["A","B","C"] Enjoy.', 2)).toBeNull();
    expect(parseTitles('[{"keyword":"x","title":"A"},{"keyword":"y","title":"B"}]', 2)).toEqual(['A', 'B']);
    expect(parseTitles('Here are your titles:\n1. "First title"\n2) Second title\n', 2)).toEqual(['First title', 'Second title']);
    expect(parseTitles('Just One Title', 1)).toEqual(['Just One Title']);
    expect(parseTitles('{"titles": ["only one"]}', 3)).toBeNull();
    expect(parseTitles('', 1)).toBeNull();
  });
});

describe('POST /api/generate-blog-title', () => {
  it('single keyword → { title }, with the user key, one provider call', async () => {
    const { client } = await userWithKey('title-one');
    next = { kind: 'ok', content: '{"titles": ["10 Easy Ways to Start Composting"]}' };
    const before = provider.requests.length;
    const res = await client.postJson('/api/generate-blog-title', {
      keywords: 'composting',
      multipleKeywords: false,
      language: 'English (UK)',
      toneOfVoice: 'Friendly',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: '10 Easy Ways to Start Composting' });
    expect(provider.requests.length - before).toBe(1);
    const req = provider.requests.at(-1)!;
    expect(req.authorization).toBe('Bearer sk-user-title-one');
    expect(req.messages.at(-1)!.content).toContain('composting');
    expect(req.messages.at(-1)!.content).toContain('English (UK)');
  });

  it('multiple keywords → { titles } in order, in ONE provider call for 50 keywords', async () => {
    const { client } = await userWithKey('title-many');
    const keywords = Array.from({ length: 50 }, (_, i) => `keyword ${i + 1}`);
    next = { kind: 'ok', content: '```json\n' + JSON.stringify({ titles: keywords.map((k) => `Title for ${k}`) }) + '\n```' };
    const before = provider.requests.length;
    const res = await client.postJson('/api/generate-blog-title', { keywords: keywords.join('\n'), multipleKeywords: true });
    expect(res.status).toBe(200);
    const { titles } = await res.json();
    expect(titles).toHaveLength(50);
    expect(titles[0]).toBe('Title for keyword 1');
    expect(titles[49]).toBe('Title for keyword 50');
    expect(provider.requests.length - before).toBe(1);
    const over = await client.postJson('/api/generate-blog-title', {
      keywords: [...keywords, 'one more'].join('\n'),
      multipleKeywords: true,
    });
    expect(over.status).toBe(400);
  });

  it("'Missing Input' for empty keywords; the agreed message for a malformed answer and a provider error", async () => {
    const { client } = await userWithKey('title-errors');
    const empty = await client.postJson('/api/generate-blog-title', { keywords: ' \n \n', multipleKeywords: true });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error).toBe('Please enter at least one keyword or topic for title generation.');
    next = { kind: 'ok', content: '{"titles": ["only one"]}' };
    const short = await client.postJson('/api/generate-blog-title', { keywords: 'a\nb\nc', multipleKeywords: true });
    expect(short.status).toBe(502);
    expect((await short.json()).error).toBe('Failed to generate blog post titles. Please try again.');
    next = { kind: 'malformed' };
    expect((await client.postJson('/api/generate-blog-title', { keywords: 'a' })).status).toBe(502);
    next = { kind: 'status', status: 500, message: 'upstream exploded' };
    const failed = await client.postJson('/api/generate-blog-title', { keywords: 'a' });
    expect(failed.status).toBe(502);
    const body = await failed.text();
    expect(body).toContain('Failed to generate blog post titles');
    expect(body).not.toContain('upstream exploded');
    const zh = await client.postJson('/api/generate-blog-title', { keywords: '' }, { cookie: `${client.cookieHeader()}; language=zh-HK` });
    expect((await zh.json()).error).toBe('請輸入至少一個關鍵字或主題以生成標題。');
  });

  it('without a key anywhere: 503 with a clear message; signed out: 401', async () => {
    const user = await makeUser('title-nokey');
    const res = await (await signedInClient(app.url, user.id)).postJson('/api/generate-blog-title', { keywords: 'x' });
    expect(res.status).toBe(503);
    expect((await res.json()).error).toContain('Settings');
    expect((await new TestClient(app.url).postJson('/api/generate-blog-title', { keywords: 'x' })).status).toBe(401);
  });

  it('is limited per user (429 with Retry-After), and the limit is per user', async () => {
    const { user, client } = await userWithKey('title-limit');
    for (let i = 0; i < titleLimit(); i++) await hit('titleUser', `title:${user.id}`);
    next = { kind: 'ok', content: '{"titles": ["T"]}' };
    const before = provider.requests.length;
    const res = await client.postJson('/api/generate-blog-title', { keywords: 'x' });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(typeof (await res.json()).error).toBe('string');
    expect(provider.requests.length).toBe(before);
    const other = await userWithKey('title-limit-other');
    expect((await other.client.postJson('/api/generate-blog-title', { keywords: 'x' })).status).toBe(200);
  });
});
