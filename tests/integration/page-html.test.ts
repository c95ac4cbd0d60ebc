/**
 * The signed-in pages render the same HTML as before the render work of issue 19 (schemas, option
 * lists and page strings built once instead of per render), in English and in Traditional Chinese.
 *
 * The fixtures in tests/fixtures/page-html/ were captured from the build before that work; what
 * differs per run (ids, nonces, dates, build hashes, the session's CSRF token) is normalised on both
 * sides. A page that changes on purpose gets its fixture rewritten with `UPDATE_PAGE_HTML=1` (then
 * read the diff before committing it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { startTestApp, type TestApp, type TestClient } from '../support/app-server';
import { signedInClient } from '../support/input-tools';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/page-html');
const UPDATE = process.env.UPDATE_PAGE_HTML === '1';

let app: TestApp;
let client: TestClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (email, name, subscription_status) VALUES ('page-html@example.com', 'Ada Lovelace', 'pro') RETURNING id`;
  await grantSignupCredits(user!.id);
  const [run] = await sql<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total, created_at)
    VALUES (${user!.id}, 'text', 'openai/gpt-4o-mini', 3, '2026-03-02T09:00:00Z') RETURNING id`;
  const results: string[] = [];
  for (const [i, status] of (['completed', 'completed', 'failed'] as const).entries()) {
    const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, created_at)
      VALUES (${user!.id}, ${run!.id}, ${i + 1}, 'text', ${`topic ${i + 1}`}, ${`Post ${i + 1}`},
        ${status === 'completed' ? `<h2>Part ${i + 1}</h2><p>Body of post ${i + 1}</p>` : null}, ${status},
        'openai/gpt-4o-mini', 1, ${`2026-03-02T09:0${i + 1}:00Z`})
      RETURNING id`;
    results.push(r!.id);
  }
  ids.run = run!.id;
  ids.result = results[0]!;
  client = await signedInClient(app.url, user!.id);
});
afterAll(() => app.close());

const pages = () => [
  ['app', '/app'],
  ['app-image', '/app?type=image'],
  ['results', '/app?tab=results'],
  // Without JavaScript a result's editor is a page of the list of its own (issue 19: built on demand).
  ['results-edit', `/app?tab=results&edit=${ids.result}`],
  ['integration', '/app?tab=wordpress'],
  ['templates', '/app/templates'],
  ['run', `/app/runs/${ids.run}`],
  ['publish', `/app/publish/${ids.result}`],
  ['publish-bulk', '/app/publish-bulk'],
  ['settings', '/app?settings=1'],
  ['subscription', '/subscription'],
  ['wordpress', '/wordpress'],
];

const MONTHS =
  'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|January|February|March|April|June|July|August|September|October|November|December';

/** What differs from run to run, replaced by placeholders. */
function normalise(html: string): string {
  return (
    html
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/nonce="[^"]*"/g, 'nonce="<nonce>"')
      // The build's file list (how esbuild splits modules into chunks is not the page) and hashes.
      .replace(/<link rel="modulepreload"[^>]*>/g, '')
      .replace(/window\.__remixManifest = \{[\s\S]*?\n\};/, 'window.__remixManifest = <manifest>;')
      .replace(/(\/build\/[\w./$[\]-]*?)-[A-Z0-9]{8}\.(js|css)/g, '$1-<hash>.$2')
      .replace(/("csrf"|name="csrf" value=)"[^"]*"/g, '$1"<csrf>"')
      // The locales' content hash: any engineer's new words change it on every page.
      .replace(/(&amp;v=|"catalogueVersion":")[0-9a-f]{12}/g, '$1<catalogue>')
      .replace(/\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?/g, '<date>')
      .replace(new RegExp(`\\b(${MONTHS})\\.? \\d{1,2}(, \\d{4})?`, 'g'), '<date>')
      .replace(/\d{1,2} (${MONTHS}) \d{4}/g, '<date>')
      .replace(/\d{4}年\d{1,2}月(\d{1,2}日)?/g, '<date>')
      .replace(/\d{1,2}\/\d{1,2}\/\d{2,4}/g, '<date>')
      .replace(/\d{1,2}:\d{2}(:\d{2})?(\s?[AP]M)?/g, '<time>')
      .replace(/(上午|下午)<time>/g, '<time>')
      .replace(/\b1[0-9]{12}\b/g, '<ms>')
  );
}

describe('signed-in pages render unchanged HTML', () => {
  for (const lang of ['en', 'zh-HK'] as const) {
    it(`every page in ${lang}`, async () => {
      fs.mkdirSync(FIXTURES, { recursive: true });
      for (const [name, url] of pages()) {
        const res = await client.get(url!, { 'accept-language': lang });
        expect(res.status, `${url} ${lang}`).toBe(200);
        const raw = await res.text();
        // A character split by React's stream (the react-dom patch) shows up as NUL bytes.
        expect(raw.includes('\u0000'), `${url} (${lang}) has no NUL byte`).toBe(false);
        const html = normalise(raw).replaceAll(/(<\/[a-z0-9]+>|<!-- -->)(?=<)/gi, '$1\n');
        const file = path.join(FIXTURES, `${name}.${lang}.html`);
        if (UPDATE) {
          fs.writeFileSync(file, html);
          continue;
        }
        expect(fs.existsSync(file), `tests/fixtures/page-html/${name}.${lang}.html exists`).toBe(true);
        expect(html, `${url} (${lang}) differs from tests/fixtures/page-html/${name}.${lang}.html`).toBe(fs.readFileSync(file, 'utf8'));
      }
    });
  }
});
