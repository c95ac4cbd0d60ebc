import type { Result } from 'axe-core';
import type { BrowserContext, Page } from '@playwright/test';
import { axeViolations, expect, makeAccount, signIn, test, withDb, WCAG22_AA, type Account } from './fixtures';

// axe-core (WCAG 2.0–2.2 A and AA, and its best practices) on the pages a signed-out and a signed-in
// user reach, with and without JavaScript, in both languages. An axe run costs several times a page
// load, so each run goes where it can find what no other check finds:
// - every page in English, with scripts, in the browser;
// - every English page as a browser without scripts gets it: its HTML (fetched with its cookies)
//   is compared, in the page, with the DOM the scripts left. Where they differ (forms that confirm a
//   step without scripts, controls the scripts swap in, <noscript> content), axe reads a script-free
//   copy; where they are the same, axe's answer would be the same;
// - in Chinese, with scripts, one page of each kind (public and sign-up pages, the workspace with its
//   settings dialog, results with the editor, dates and times, the calendar, plans, settings forms),
//   where longer or shorter texts change names, sizes and wrapping. The Chinese markup of every page
//   (its language, labels, names, unique landmarks, without scripts) is checked without a browser by
//   tests/integration/page-html.test.ts.
// The no-js project has nothing of its own to run here: the pages without scripts are read above.
// A WCAG violation of any impact fails; a best-practice one fails when serious or critical, and the
// rest are printed and attached to the report.

test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, 'the pages without scripts are read by the js project');

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

/** A page to check; `zh` marks the pages also read in Chinese. */
type Visit = { path: string; status?: number; zh?: true };

const signedOut: Visit[] = [
  { path: '/', zh: true },
  { path: '/auth' },
  { path: '/auth?tab=register', zh: true },
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
    { path: '/app?settings=1', zh: true },
    { path: '/app?tab=results' },
    { path: `/app?tab=results&edit=${published}`, zh: true },
    { path: '/app?tab=wordpress' },
    { path: `/app/runs/${run}` },
    { path: `/app/publish/${scheduled}`, zh: true },
    { path: `/app/publish-bulk?ids=${published},${scheduled},${failed}`, zh: true },
    { path: '/app/calendar', zh: true },
    { path: '/app/templates' },
    { path: '/wordpress' },
    { path: '/settings/api-tokens' },
    { path: '/settings/webhooks', zh: true },
    { path: '/subscription', zh: true },
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
 * The DOM a browser without scripts builds from the page's HTML, as markup a scripted page can show
 * (axe is itself a script): every script taken out, no refresh, the <noscript> contents kept as
 * they were shown.
 */
const scriptFree = (html: string) =>
  html
    .replace(/<script\b[\s\S]*?<\/script>/gi, '')
    .replace(/<meta[^>]+http-equiv="refresh"[^>]*>/gi, '')
    .replace(/<(\/?)noscript\b/gi, '<$1div');

/**
 * Run in the page: the first place where the DOM the scripts left and the script-free copy differ
 * (elements, attributes, texts), or null. Scripts and their preload links are left out of both.
 */
function firstDifference(copy: string): string | null {
  const walk = (root: Node, out: string[]) => {
    for (const node of Array.from(root.childNodes)) {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (text) out.push(`"${text}"`);
        continue;
      }
      if (!(node instanceof Element)) continue;
      const tag = node.tagName.toLowerCase();
      if (tag === 'script' || (tag === 'link' && node.getAttribute('rel') === 'modulepreload')) continue;
      const attributes = Array.from(node.attributes, (a) => `${a.name}="${a.value}"`).sort();
      out.push(`<${[tag, ...attributes].join(' ')}>`);
      walk(node, out);
      out.push(`</${tag}>`);
    }
    return out;
  };
  const live = walk(document.documentElement, []);
  const parsed = walk(new DOMParser().parseFromString(copy, 'text/html').documentElement, []);
  for (let i = 0; i < Math.max(live.length, parsed.length); i++) {
    if (live[i] !== parsed[i]) return `with scripts ${live[i] ?? '(end)'}, without ${parsed[i] ?? '(end)'}`;
  }
  return null;
}

// The English signed-in pages in two halves of about 14 axe runs each (each half with an account of
// its own), so the two workers share the longest pass: the workspace's seven pages are all also read
// without scripts, of the others three.
type Pass = { language: 'en' | 'zh-HK'; signedIn: false | 'workspace' | 'others' | 'all' };
const passes: Pass[] = [
  { language: 'en', signedIn: false },
  { language: 'en', signedIn: 'workspace' },
  { language: 'en', signedIn: 'others' },
  { language: 'zh-HK', signedIn: false },
  { language: 'zh-HK', signedIn: 'all' },
];
const WORKSPACE_PAGES = 7;

for (const { language, signedIn } of passes) {
  const name = signedIn ? `signed-in pages${signedIn === 'all' ? '' : ` (${signedIn})`}` : 'signed-out pages';
  test(`axe on the ${name} (${language})`, async ({ page, browser, baseURL }, testInfo) => {
    // About 20 axe runs at most, each 1–4 s on two busy cores.
    test.setTimeout(420_000);
    const english = language === 'en';
    // A browser without scripts: only its cookies are used, to fetch each page as it would.
    const noScripts: BrowserContext = await browser.newContext({ javaScriptEnabled: false });
    for (const context of [page.context(), noScripts]) await context.addCookies([{ name: 'language', value: language, url: baseURL! }]);
    const failures: string[] = [];
    const minor: string[] = [];
    const readWithoutScripts: string[] = [];
    let axeRuns = 0;
    const axe = async (path: string, how: string) => {
      axeRuns++;
      for (const v of await axeViolations(page, WCAG22_AA)) {
        if (isWcag(v) || v.impact === 'serious' || v.impact === 'critical') failures.push(`${path} (${how}): ${summary(v)}`);
        else minor.push(`${path} (${how}): ${summary(v)}`);
      }
    };
    const check = async ({ path, status }: Visit) => {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(status ?? 200);
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      await axe(path, 'with scripts');
      if (!english) return;
      const plain = await noScripts.request.get(path);
      expect(plain.status(), `${path} without scripts`).toBe(status ?? 200);
      const copy = scriptFree(await plain.text());
      expect(copy, `${path} without scripts: <html lang>`).toMatch(new RegExp(`<html[^>]* lang="${language}"`));
      const difference = await page.evaluate(firstDifference, copy);
      if (!difference) return;
      readWithoutScripts.push(`${path}: ${difference.slice(0, 300)}`);
      const url = `${baseURL}/axe-copy-of${path.split('?')[0]}`;
      await page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: copy }));
      await page.goto(url);
      await page.unroute(url);
      await axe(path, 'without scripts');
    };

    const started = Date.now();
    let visits = signedOut;
    if (signedIn) {
      const account = await makeAccount('a11y', { plan: 'pro', role: 'admin', language });
      await signIn(page.context(), account);
      await signIn(noScripts, account);
      const pages = signedInPages(await seed(account, page));
      visits = signedIn === 'workspace' ? pages.slice(0, WORKSPACE_PAGES) : signedIn === 'others' ? pages.slice(WORKSPACE_PAGES) : pages;
    }
    for (const visit of visits) if (english || visit.zh) await check(visit);
    await noScripts.close();

    const timing = `${axeRuns} axe runs in ${Date.now() - started} ms; read without scripts (their DOM differs):\n${readWithoutScripts.join('\n')}`;
    await testInfo.attach('axe-timing', { body: timing, contentType: 'text/plain' });
    console.log(`[axe ${language}, ${name}] ${timing}`);
    if (minor.length) {
      await testInfo.attach('axe-minor-violations', { body: minor.join('\n'), contentType: 'text/plain' });
      console.log(`[axe ${language}] ${minor.join('\n')}`);
    }
    expect(failures).toEqual([]);
  });
}
