import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type PgBoss from 'pg-boss';
import { sql } from '../../db/client';
import { createApiToken } from '../../app/services/api-tokens.server';
import { openApiDocument } from '../../app/http/api-document.server';
import { apiFlow } from '../../examples/api-flow';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import type { TestApp } from '../support/app-server';
import { createGenUser } from '../support/generation';

// The typed client example of docs/api.md runs its whole flow against the compiled app,
// the real test WordPress and a stand-in text provider; its types are the ones openapi-typescript
// generates from the current document.

vi.hoisted(() => {
  // The test WordPress lives on 127.0.0.1.
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let openai: OpenAiServer;
let wp: WordPressSite;
let app: TestApp;
let boss: PgBoss;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 10 });
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator' });
  const { startTestApp } = await import('../support/app-server');
  [app, wp] = await Promise.all([startTestApp(), startWordPress()]);
  boss = await (await import('../../jobs/worker')).startWorkers();
}, 180_000);

afterAll(async () => {
  await boss?.stop({ graceful: false, wait: false });
  await app?.close();
  await openai?.close();
  await wp?.stop();
});

describe('examples/api-flow.ts', () => {
  it('its types are what openapi-typescript generates from the current document', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-types-'));
    try {
      fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(openApiDocument()));
      const root = path.resolve(__dirname, '../..');
      await promisify(execFile)(path.join(root, 'node_modules/.bin/openapi-typescript'), ['openapi.json', '-o', 'api.d.ts'], { cwd: dir });
      // The committed file is formatted like the rest of the repository.
      const prettier = await import('prettier');
      const target = path.join(root, 'examples/postforge-api.d.ts');
      const options = { ...(await prettier.resolveConfig(target)), filepath: target };
      const fresh = await prettier.format(fs.readFileSync(path.join(dir, 'api.d.ts'), 'utf8'), options);
      expect(fresh, 'regenerate examples/postforge-api.d.ts (docs/api.md, "The OpenAPI document and a typed client")').toBe(
        fs.readFileSync(path.join(root, 'examples/postforge-api.d.ts'), 'utf8'),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('token → site → run with an Idempotency-Key replay → polling → results → a post on WordPress', async () => {
    const user = await createGenUser(sql, { status: 'pro', credits: 10, label: 'api-flow' });
    const { token } = await createApiToken(user.id, { name: 'example', expiresAt: null });
    const lines: string[] = [];
    const out = await apiFlow({
      baseUrl: app.url,
      token,
      site: { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword },
      topics: ['How to brew pour-over coffee', 'Best hiking trails near Hong Kong'],
      timeoutMs: 90_000,
      log: (line) => lines.push(line),
    });
    expect(out.replayed).toBe(true);
    expect(out.resultIds).toHaveLength(2);
    const post = await wp.rest<{ status: string; content: { raw: string } }>(`/wp/v2/posts/${out.postId}?context=edit`);
    expect(post.body.status).toBe('publish');
    expect(post.body.content.raw.length).toBeGreaterThan(20);
    const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_runs WHERE user_id = ${user.id}`;
    expect(n, 'the replayed start made no second run').toBe(1);
  }, 150_000);
});
