import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startReplicateServer, type ReplicateServer } from '../support/replicate-server';
import { TestClient, type TestApp } from '../support/app-server';
import { available, createGenUser, signedInGenUser, openHolds, waitForRun } from '../support/generation';

// The JSON routes of generation and results, downloads and /images/{id}, through the real
// app (run `npx remix build` first). Owner checks: another user's anything is 404.

let openai: OpenAiServer;
let replicate: ReplicateServer;
let app: TestApp;
let stopLoop: () => Promise<void>;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 10 });
  replicate = await startReplicateServer({ latencyMs: 10 });
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    REPLICATE_BASE_URL: replicate.url,
    OPENROUTER_API_KEY: 'sk-operator',
    REPLICATE_API_TOKEN: 'r8-operator',
    GENERATION_PROVIDER_ATTEMPTS: '2',
  });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
  const loop = await (await import('../../jobs/generation-loop')).startGenerationLoop();
  stopLoop = loop.stop;
});

afterAll(async () => {
  await stopLoop?.();
  await app?.close();
  await openai?.close();
  await replicate?.close();
});

function signedIn(opts: Parameters<typeof createGenUser>[1] = {}) {
  return signedInGenUser(getSql(), app.url, opts);
}

const TEXT = 'openai/gpt-4o-mini-search-preview';

describe('generation over HTTP', () => {
  it('POST /api/generate/text → { jobId }; GET /api/jobs/{id}; GET /api/results; downloads; owner checks → 404', async () => {
    const a = await signedIn({ credits: 10 });
    const b = await signedIn({ credits: 10 });
    const before = await available(getSql(), a.id);
    const start = await a.c.postJson('/api/generate/text', {
      prompts: 'garden tools\nwinter <b>soup</b>\n\n',
      model: TEXT,
      embedImage: true,
    });
    expect(start.status).toBe(200);
    const { jobId } = (await start.json()) as { jobId: string };
    await waitForRun(getSql(), jobId);
    const job = await a.c.get(`/api/jobs/${jobId}`);
    expect(await job.json()).toMatchObject({ totalPrompts: 2, completedPrompts: 2, failedPrompts: 0, status: 'completed' });
    // Two posts with an embedded image each: 2 × (1 + 1) credits.
    expect(await available(getSql(), a.id)).toBe(before - 4);

    const list = (await (await a.c.get('/api/results?page=1&limit=20&type=text')).json()) as {
      results: { id: string; prompt: string; content: string; metadata: { imageUrls: string[] }; wordCount: number }[];
      pagination: { page: number; limit: number; total: number; totalPages: number };
    };
    expect(list.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    const soup = list.results.find((r) => r.prompt === 'winter <b>soup</b>')!;
    expect(soup.content).toContain(`<img src="${soup.metadata.imageUrls[0]}"`);
    expect(soup.wordCount).toBeGreaterThan(5);
    const searched = (await (await a.c.get('/api/results?search=GARDEN')).json()) as { results: unknown[] };
    expect(searched.results).toHaveLength(1);
    expect(((await (await a.c.get('/api/results?type=image')).json()) as { results: unknown[] }).results).toHaveLength(0);

    const img = await a.c.get(soup.metadata.imageUrls[0]!);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(img.headers.get('cache-control')).toContain('max-age=31536000');

    const dl = await a.c.get(`/api/results/${soup.id}/download`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-disposition')).toContain('filename="winter_bsoupb.txt"');
    expect(await dl.text()).toContain('This article explains');

    const zip = await a.c.get('/api/results/download-all');
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const bytes = Buffer.from(await zip.arrayBuffer());
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    expect(bytes.includes(Buffer.from('text_results.txt'))).toBe(true);

    // Another user: 404 for the job, the result, its image, edit, retry, delete, download.
    const id = soup.id;
    expect((await b.c.get(`/api/jobs/${jobId}`)).status).toBe(404);
    expect((await b.c.postJson(`/api/jobs/${jobId}/cancel`, {})).status).toBe(404);
    expect((await b.c.get(`/api/results/${id}`)).status).toBe(404);
    expect((await b.c.get(soup.metadata.imageUrls[0]!)).status).toBe(404);
    expect(
      (
        await b.c.request(`/api/results/${id}/content`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: '{"content":"<p>x</p>"}',
        })
      ).status,
    ).toBe(404);
    expect((await b.c.postJson(`/api/results/${id}/retry`, {})).status).toBe(404);
    expect((await b.c.request(`/api/results/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await b.c.get(`/api/results/${id}/download`)).status).toBe(404);
    expect(((await (await b.c.get('/api/results')).json()) as { results: unknown[] }).results).toHaveLength(0);
    expect((await b.c.get('/api/results/download-all')).status).toBe(404);
    expect((await b.c.get(`/api/jobs/not-a-uuid`)).status).toBe(404);
    // Signed out: 401.
    expect((await new TestClient(app.url).get('/api/results')).status).toBe(401);

    // The owner edits (sanitized again), then removes one and clears the rest.
    const put = await a.c.request(`/api/results/${id}/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: '<p>new <img src=x onerror=alert(1)></p>' }),
    });
    expect(put.status).toBe(200);
    // Only our own images survive: no broken `src=x`.
    expect(((await put.json()) as { content: string }).content).toBe('<p>new </p>');
    // The title and SEO title are stored (no longer ignored); a leading H1 in the text is the title.
    const titled = await a.c.request(`/api/results/${id}/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: '<p>kept</p>', title: 'My own title', seoTitle: 'My SEO title' }),
    });
    expect(titled.status).toBe(200);
    expect(await titled.json()).toMatchObject({ title: 'My own title', content: '<p>kept</p>', seo: { seoTitle: 'My SEO title' } });
    const byH1 = await a.c.request(`/api/results/${id}/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: '<h1>Heading title</h1><p>kept</p>' }),
    });
    expect(await byH1.json()).toMatchObject({ title: 'Heading title', content: '<p>kept</p>' });
    const tooLong = await a.c.request(`/api/results/${id}/content`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: '<p>kept</p>', seoTitle: 'x'.repeat(61) }),
    });
    expect(tooLong.status).toBe(400);
    expect((await a.c.request(`/api/results/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await a.c.request('/api/results', { method: 'DELETE' })).status).toBe(200);
    expect(((await (await a.c.get('/api/results')).json()) as { pagination: { total: number } }).pagination.total).toBe(0);
  });

  it('answers bad input with { error } and the right status', async () => {
    const a = await signedIn({ status: 'free', credits: 2 });
    const bad = await a.c.postJson('/api/generate/text', { prompts: '', model: TEXT });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('Please enter at least one blog topic or keyword.');
    const long = await a.c.postJson('/api/generate/text', { prompts: 'x'.repeat(501), model: TEXT });
    expect(long.status).toBe(400);
    const many = await a.c.postJson('/api/generate/text', {
      prompts: Array.from({ length: 1001 }, (_, i) => `t${i}`).join('\n'),
      model: TEXT,
    });
    expect(((await many.json()) as { error: string }).error).toMatch(/at most 1000/);
    const pro = await a.c.postJson('/api/generate/text', { prompts: 'a', model: 'anthropic/claude-3.7-sonnet' });
    expect(pro.status).toBe(403);
    expect(((await pro.json()) as { error: string }).error).toMatch(/^Free users can only use /);
    const poor = await a.c.postJson('/api/generate/text', { prompts: 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl', model: TEXT });
    expect(poor.status).toBe(402);
    expect(((await poor.json()) as { error: string }).error).toBe('Insufficient credits. Please upgrade your plan.');
    const zh = await a.c.postJson(
      '/api/generate/text',
      { prompts: 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl', model: TEXT },
      { cookie: `${a.c.cookieHeader()}; language=zh-HK` },
    );
    expect(((await zh.json()) as { error: string }).error).toBe('點數不足，請升級你的計劃。');
    expect(await openHolds(getSql(), a.id)).toBe(0);
    const [{ n }] = (await sql`SELECT count(*)::int AS n FROM generation_results WHERE user_id = ${a.id}`) as unknown as [{ n: number }];
    expect(n).toBe(0);
  });
});

describe('strict inputs', () => {
  it("refuses an out-of-range or unknown query value with a 400 naming the field, in the reader's language", async () => {
    const a = await signedIn({ status: 'free', credits: 2 });
    const refused = async (path: string, field: string, cookie?: string) => {
      const res = await a.c.get(path, cookie ? { cookie: `${a.c.cookieHeader()}; ${cookie}` } : {});
      const body = (await res.json()) as { error: string; fields?: Record<string, string[]> };
      expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(400);
      expect(Object.keys(body.fields ?? {}), path).toEqual([field]);
      return body.error;
    };
    expect(await refused('/api/results?limit=1000', 'limit')).toBe('limit must be a whole number from 1 to 100.');
    expect(await refused('/api/results?limit=1000', 'limit', 'language=zh-HK')).toBe('limit 必須是 1 至 100 的整數。');
    await refused('/api/results?limit=0', 'limit');
    await refused('/api/results?page=abc', 'page');
    await refused('/api/results?page=0', 'page');
    expect(await refused('/api/results?type=bogus', 'type')).toBe('type must be one of: all, text, image.');
    await refused(`/api/results?search=${'x'.repeat(201)}`, 'search');
    await refused('/api/results/download-all?type=bogus', 'type');
    // What was not sent keeps its default; what was sent in range is used as sent.
    const ok = (await (await a.c.get('/api/results?limit=100&type=text')).json()) as { pagination: { limit: number; page: number } };
    expect(ok.pagination).toMatchObject({ limit: 100, page: 1 });
  });

  it('refuses an unknown model by name, and accepts the model templates fall back to', async () => {
    const a = await signedIn({ status: 'pro', credits: 5 });
    const unknown = await a.c.postJson('/api/generate/text', { prompts: 'a', model: 'openai/gpt-5' });
    const body = (await unknown.json()) as { error: string; fields: Record<string, string[]> };
    expect(unknown.status).toBe(400);
    expect(body.fields.model).toEqual(['This model is not available: choose one of the listed models.']);
    const { TEMPLATE_DEFAULT_TEXT_MODEL } = await import('../../app/catalogue');
    const started = await a.c.postJson('/api/generate/text', { prompts: 'One topic', model: TEMPLATE_DEFAULT_TEXT_MODEL });
    expect(started.status, JSON.stringify(await started.clone().json())).toBe(200);
  });
});

describe("a failed item, in the reader's language", () => {
  type Listed = { id: string; status: string; error: string | null; errorCode: string | null };
  const REFUSED_EN = 'The AI provider refused the request (HTTP 404). (The provider said: “No endpoints found for this model.”)';
  const REFUSED_ZH = 'AI 供應商拒絕了這個請求（HTTP 404）。（供應商回應：「No endpoints found for this model.」）';

  it("a provider's refusal is stored as a code; the API and the results page say why in en and zh-HK, the provider's words quoted", async () => {
    const a = await signedIn({ credits: 5 });
    const before = await available(getSql(), a.id);
    openai.setScript({ 'refused topic': [{ kind: 'status', status: 404, message: 'No endpoints found for this model.' }] });
    try {
      const start = await a.c.postJson('/api/generate/text', { prompts: 'refused topic', model: TEXT });
      expect(start.status).toBe(200);
      await waitForRun(getSql(), ((await start.json()) as { jobId: string }).jobId);
    } finally {
      openai.setScript(undefined);
    }
    expect(await available(getSql(), a.id)).toBe(before);
    const zh = { 'accept-language': 'zh-HK' };
    const listEn = (await (await a.c.get('/api/results')).json()) as { results: Listed[] };
    const failed = listEn.results[0]!;
    expect(failed).toMatchObject({ status: 'failed', errorCode: 'provider_refused', error: REFUSED_EN });
    expect(failed).not.toHaveProperty('errorParams');
    const listZh = (await (await a.c.get('/api/results', zh)).json()) as { results: Listed[] };
    expect(listZh.results[0]).toMatchObject({ errorCode: 'provider_refused', error: REFUSED_ZH });
    expect(await (await a.c.get(`/api/results/${failed.id}`, zh)).json()).toMatchObject({
      errorCode: 'provider_refused',
      error: REFUSED_ZH,
    });
    const page = await (await a.c.get('/app?tab=results', zh)).text();
    expect(page).toContain('data-error-code="provider_refused"');
    expect(page).toContain(REFUSED_ZH);

    // A failure stored before codes keeps its text for operators only: whatever it says (here a
    // driver's message with a host and port), the reader gets "Generation failed".
    await sql`UPDATE generation_results SET error = 'write CONNECTION_CLOSED 127.0.0.1:5432', error_code = NULL, error_params = NULL
      WHERE id = ${failed.id}`;
    const old = await a.c.get(`/api/results/${failed.id}`, zh);
    const body = await old.text();
    expect(JSON.parse(body)).toMatchObject({ status: 'failed', errorCode: null, error: '生成失敗' });
    expect(body).not.toContain('127.0.0.1');
    expect(await (await a.c.get('/app?tab=results')).text()).not.toContain('CONNECTION_CLOSED');
  });
});
