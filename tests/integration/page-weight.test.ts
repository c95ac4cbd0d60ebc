/**
 * The JavaScript a first visit downloads, gzipped, from the production build: the landing page
 * within 110 KB, the signed-in workspace (/app, its Input tab: fill in the form and press Start)
 * within 150 KB. What the workspace needs only on first use (the editor, the dialogs, the CSV import)
 * loads then, so it is not in this sum.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';
import { pageJavaScript } from '../support/page-javascript';

let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await startTestApp();
  const user = await makeUser('page-weight', 'pro');
  cookie = (await signedInClient(app.url, user.id)).cookieHeader();
});
afterAll(() => app.close());

const report = (label: string, js: Awaited<ReturnType<typeof pageJavaScript>>) => {
  const lines = js.files.map(
    (f) => `  ${f.file.padEnd(60)} ${(f.raw / 1024).toFixed(1).padStart(7)} KB raw ${(f.gzip / 1024).toFixed(1).padStart(6)} KB gzip`,
  );
  if (process.env.PAGE_WEIGHT_REPORT)
    console.info(`${label}: ${(js.total / 1024).toFixed(1)} KB gzip in ${js.files.length} files\n${lines.join('\n')}`);
};

it('the landing page loads at most 110 KB of compressed JavaScript', async () => {
  const js = await pageJavaScript(app.url + '/', { 'accept-language': 'en' });
  report('/', js);
  expect(js.total / 1024).toBeLessThanOrEqual(110);
});

it('the signed-in workspace loads at most 150 KB of compressed JavaScript', async () => {
  const js = await pageJavaScript(app.url + '/app', { 'accept-language': 'en', cookie });
  report('/app', js);
  expect(js.files.some((f) => /\/routes\/app-[\w-]+\.js$/.test(f.file))).toBe(true);
  expect(js.total / 1024).toBeLessThanOrEqual(150);
});

it("the Input tab's catalogue leaves out the WordPress texts, which the other tabs load", async () => {
  const namespaces = async (path: string) => {
    const html = await (await fetch(app.url + path, { headers: { 'accept-language': 'en', cookie } })).text();
    return /src="\/locales\/en\?ns=([^"&]+)&amp;/.exec(html)?.[1]?.split(',');
  };
  const input = await namespaces('/app');
  expect(input).toContain('workspace');
  expect(input).not.toContain('wordpress');
  expect(input).not.toContain('ledger');
  expect(await namespaces('/app?tab=results')).toContain('wordpress');
  expect(await namespaces('/app?tab=wordpress')).toContain('wordpress');
});
