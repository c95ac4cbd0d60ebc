import type { Result } from 'axe-core';
import type { Page } from '@playwright/test';
import { axeViolations, expect, makeAccount, signIn, test, withDb, WCAG22_AA, type Account } from './fixtures';

// axe-core (WCAG 2.0–2.2 A and AA, and its best practices) on every page a signed-out and a
// signed-in user reach, in both languages, in both projects (with and without JavaScript). One
// browser context per combination: the signed-out pages first, then the same context signs in.
// A WCAG violation of any impact fails; a best-practice one fails when serious or critical, and
// the rest are printed and attached to the report.

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

type Visit = { path: string; status?: number };

const signedOut: Visit[] = [
  { path: '/' },
  { path: '/auth' },
  { path: '/auth?tab=register' },
  { path: '/forgot-password' },
  { path: '/forgot-password?sent=1' },
  { path: '/reset-password' },
  { path: '/reset-password?token=abcdefghijklmnopqrstuv&email=someone%40example.com' },
  { path: '/terms' },
  { path: '/privacy' },
  { path: '/contact' },
  { path: '/this-page-does-not-exist', status: 404 },
];

function signedInPages({ run, results }: Seeded): Visit[] {
  const [published, scheduled, failed] = results;
  return [
    { path: '/app' },
    { path: '/app?type=image' },
    { path: '/app?input=csv' },
    { path: '/app?settings=1' },
    { path: '/app?tab=results' },
    { path: `/app?tab=results&edit=${published}` },
    { path: '/app?tab=wordpress' },
    { path: `/app/runs/${run}` },
    { path: `/app/publish/${scheduled}` },
    { path: `/app/publish-bulk?ids=${published},${scheduled},${failed}` },
    { path: '/app/calendar' },
    { path: '/app/templates' },
    { path: '/wordpress' },
    { path: '/settings/api-tokens' },
    { path: '/settings/webhooks' },
    { path: '/subscription' },
    { path: '/admin/ledger' },
  ];
}

type Seeded = { run: string; results: [string, string, string] };

/**
 * What the signed-in pages show when they have something to show: a connected site (the real
 * WordPress of the run), a run with a published result ("View post"), one scheduled for tomorrow
 * and one failed.
 */
async function seed(account: Account, page: Page): Promise<Seeded> {
  const site = await page.request.post('/api/wordpress/sites', {
    data: { siteUrl: wp().url, username: wp().user, appPassword: wp().password },
  });
  expect(site.status()).toBe(201);
  return withDb(async (sql) => {
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${account.id}, 'text', 'openai/gpt-4o-mini', 3) RETURNING id`;
    const ids: string[] = [];
    for (const [i, status] of (['completed', 'completed', 'failed'] as const).entries()) {
      const [r] = await sql<{ id: string }[]>`
        INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, error)
        VALUES (${account.id}, ${run!.id}, ${i}, 'text', ${`topic ${i + 1}`}, ${`Post ${i + 1}`},
          ${status === 'completed' ? `<h2>Part ${i + 1}</h2><p>Body of post ${i + 1}</p>` : null}, ${status}, 'openai/gpt-4o-mini', 1,
          ${status === 'failed' ? 'Generation failed' : null})
        RETURNING id`;
      ids.push(r!.id);
    }
    const [wpSite] = await sql<{ id: string; site_name: string }[]>`
      SELECT id, site_name FROM wordpress_sites WHERE user_id = ${account.id}`;
    await sql`
      INSERT INTO wordpress_publications (user_id, site_id, site_name, result_id, title, content, status, publish_at, marker, wp_post_id, wp_link)
      VALUES
        (${account.id}, ${wpSite!.id}, ${wpSite!.site_name}, ${ids[0]!}, 'Post 1', '<p>Body</p>', 'published', now() - interval '1 hour',
          ${`a11y-${ids[0]}`}, 1, ${`${wp().url}/?p=1`}),
        (${account.id}, ${wpSite!.id}, ${wpSite!.site_name}, ${ids[1]!}, 'Post 2', '<p>Body</p>', 'queued', now() + interval '1 day',
          ${`a11y-${ids[1]}`}, null, null)`;
    return { run: run!.id, results: ids as Seeded['results'] };
  });
}

const summary = (v: Result) => `${v.impact ?? 'n/a'} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`;
const isWcag = (v: Result) => v.tags.some((tag) => /^wcag2\d*a+$/.test(tag));

/**
 * Without JavaScript axe (itself a script) cannot run in the page, so it reads a copy: the DOM the
 * browser built with scripts off, served to a page of a scripted context with every script taken
 * out and the <noscript> contents kept as they were shown.
 */
async function copyForAxe(from: Page, reader: Page, url: string): Promise<void> {
  const html = (await from.content())
    .replace(/<script\b[\s\S]*?<\/script>/gi, '')
    .replace(/<meta[^>]+http-equiv="refresh"[^>]*>/gi, '')
    .replace(/<(\/?)noscript\b/gi, '<$1div');
  await reader.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }));
  await reader.goto(url);
  await reader.unroute(url);
}

for (const language of ['en', 'zh-HK'] as const) {
  test(`axe on every page (${language})`, async ({ page, browser, baseURL, jsEnabled }, testInfo) => {
    // About 30 pages, each read by axe: ~2.5 min with scripts, ~3.5 min without, on two busy cores.
    test.setTimeout(420_000);
    await page.context().addCookies([{ name: 'language', value: language, url: baseURL! }]);
    const readerContext = jsEnabled ? null : await browser.newContext({ javaScriptEnabled: true });
    const reader = readerContext ? await readerContext.newPage() : page;
    const failures: string[] = [];
    const minor: string[] = [];
    const check = async ({ path, status }: Visit) => {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(status ?? 200);
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      if (readerContext) await copyForAxe(page, reader, `${baseURL}/axe-copy-of${path.split('?')[0]}`);
      for (const v of await axeViolations(reader, WCAG22_AA)) {
        if (isWcag(v) || v.impact === 'serious' || v.impact === 'critical') failures.push(`${path}: ${summary(v)}`);
        else minor.push(`${path}: ${summary(v)}`);
      }
    };

    const started = Date.now();
    for (const visit of signedOut) await check(visit);

    const account = await makeAccount('a11y', { plan: 'pro', role: 'admin', language });
    await signIn(page.context(), account);
    const seeded = await seed(account, page);
    for (const visit of signedInPages(seeded)) await check(visit);
    await readerContext?.close();

    const visited = signedOut.length + signedInPages(seeded).length;
    await testInfo.attach('axe-timing', { body: `${visited} pages in ${Date.now() - started} ms`, contentType: 'text/plain' });
    if (minor.length) {
      await testInfo.attach('axe-minor-violations', { body: minor.join('\n'), contentType: 'text/plain' });
      console.log(`[axe ${language}, ${jsEnabled ? 'js' : 'no-js'}] ${minor.join('\n')}`);
    }
    expect(failures).toEqual([]);
  });
}
