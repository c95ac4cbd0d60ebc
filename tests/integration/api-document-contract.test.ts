import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import { sql } from '../../db/client';
import { saveApiKeys } from '../../app/services/api-keys.server';
import { openApiDocument, operations } from '../../app/http/api-document.server';
import { startTestApp, type TestApp } from '../support/app-server';
import { createGenUser } from '../support/generation';
import { signedInClient } from '../support/input-tools';
import { ContractDrift, checkAgainst, contractChecker } from '../support/api-contract';

// The document's examples sent to the compiled app: each generation example is accepted as is (no
// 400), and the answers of the start, the job and the results list have the documented shapes.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const responseSchema = (path: string, method: string) =>
  operations.find((o) => o.path === path && o.method === method)!.response!.schema as ZodTypeAny;

describe('the examples of the document, against the routes', () => {
  it('starts runs from the documented examples and answers in the documented shapes', async () => {
    const user = await createGenUser(sql, { credits: 20, label: 'openapi' });
    await saveApiKeys(user.id, { openRouterApiKey: 'sk-test-text', replicateApiKey: 'r8-test-image' });
    const client = await signedInClient(app.url, user.id);
    const doc = openApiDocument() as unknown as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    };
    const jobIds: string[] = [];
    for (const path of ['/api/generate/text', '/api/generate/image']) {
      const example = doc.paths[path]!.post!.requestBody!.content['application/json']!.example;
      expect(example, path).toBeDefined();
      const res = await client.postJson(path, example);
      const body = (await res.json()) as { jobId: string };
      expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
      expect(responseSchema(path, 'post').safeParse(body).success, JSON.stringify(body)).toBe(true);
      jobIds.push(body.jobId);
    }
    for (const id of jobIds) {
      const job = await (await client.get(`/api/jobs/${id}`)).json();
      const parsed = responseSchema('/api/jobs/{id}', 'get').safeParse(job);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
    const list = await (await client.get('/api/results?page=1&limit=20&type=all')).json();
    const parsed = responseSchema('/api/results', 'get').safeParse(list);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect((list as { results: unknown[] }).results.length).toBeGreaterThanOrEqual(3);
  });
});

describe('every /api answer checked against the document', () => {
  it('catches a planted drift: a changed schema, an unlisted status, another content type', async () => {
    const user = await createGenUser(sql, { credits: 0, label: 'drift' });
    const client = await signedInClient(app.url, user.id);
    // The real document: the answers pass (TestClient checks each one).
    expect((await client.get('/api/results?limit=5')).status).toBe(200);
    expect((await client.get('/api/results?limit=500')).status).toBe(400);

    const drifted = structuredClone(openApiDocument()) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties: Record<string, { properties: Record<string, unknown> }> }> };
    };
    // The document says `limit` is a string, forgets the 400 of the list, and says the job is XML.
    drifted.components.schemas.ResultPage!.properties.pagination!.properties.limit = { type: 'string' };
    delete drifted.paths['/api/results']!.get!.responses['400'];
    const jobOk = drifted.paths['/api/jobs/{id}']!.get!.responses['200'] as { content: Record<string, unknown> };
    jobOk.content = { 'application/xml': jobOk.content['application/json'] };

    const checker = contractChecker(drifted as never);
    const answer = async (path: string) => {
      const res = await fetch(app.url + path, { headers: { cookie: client.cookieHeader() } });
      return { method: 'GET', path, status: res.status, contentType: res.headers.get('content-type'), body: await res.json() };
    };
    expect(checker.check(await answer('/api/results?limit=5')).join('\n')).toMatch(/\/pagination\/limit must be string/);
    expect(checker.check(await answer('/api/results?limit=500')).join('\n')).toMatch(/status not documented/);
    const [{ id: runId }] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user.id}, 'text', 'openai/gpt-4o-mini-search-preview', 1) RETURNING id`;
    expect(checker.check(await answer(`/api/jobs/${runId}`)).join('\n')).toMatch(/content type application\/json not documented/);

    // Wired into TestClient: the same drift fails the request of any test that meets it.
    checkAgainst(drifted);
    try {
      await expect(client.get('/api/results?limit=5')).rejects.toThrow(ContractDrift);
    } finally {
      checkAgainst(undefined);
    }
    expect((await client.get('/api/results?limit=5')).status).toBe(200);
  });
});
