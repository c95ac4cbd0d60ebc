import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations, expect, screenshotForEye, signedInAccount, test, withDb } from './fixtures';
import type { Page, TestInfo } from '@playwright/test';

// The publishing pages in a phone-sized Chromium (390 px) against the real
// WordPress of global-setup, with and without JavaScript: Save right after Test connection, a
// result published again (update the post or make a new one), scheduled times that name their zone
// and the site's, and "retry now" with WordPress's English error explained in Chinese. Each page
// is also screenshotted at 390 px for a look by eye when E2E_SCREENSHOTS=1 (test-results/…/publish-*.png).

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
type Catalogue = { [key: string]: string | Catalogue };
const words = (language: 'en' | 'zh-HK') =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'app/locales', language, 'wordpress.json'), 'utf8')) as Catalogue;
function w(language: 'en' | 'zh-HK', key: string, values: Record<string, string> = {}): string {
  let node: string | Catalogue | undefined = words(language);
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  if (typeof node !== 'string') throw new Error(`No text ${language}/wordpress:${key}`);
  return node.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');
}

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

async function completedResult(email: string, title: string): Promise<string> {
  return withDb(async (sql) => {
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'm', 1) RETURNING id`;
    const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
      VALUES (${user!.id}, ${run!.id}, 0, 'text', ${title}, ${title}, ${`<p>Body of ${title}</p>`}, 'completed', 'm', 1) RETURNING id`;
    return r!.id;
  });
}

type PublicationRow = { id: string; status: string; wp_post_id: string | null; wp_link: string | null; update_post_id: string | null };
const publicationsOf = (resultId: string) =>
  withDb(
    (sql) => sql<PublicationRow[]>`
      SELECT id, status, wp_post_id, wp_link, update_post_id FROM wordpress_publications WHERE result_id = ${resultId} ORDER BY created_at`,
  );

/** Waits (bounded) until the worker has published every publication of the result; returns them. */
async function published(resultId: string, count: number): Promise<PublicationRow[]> {
  await expect
    .poll(async () => (await publicationsOf(resultId)).map((p) => p.status), { timeout: 60_000 })
    .toEqual(Array.from({ length: count }, () => 'published'));
  return publicationsOf(resultId);
}

/** A post on the test WordPress, read with the site's own credentials. */
async function wpPost(id: string | number): Promise<{ id: number; title: { raw: string } }> {
  const auth = Buffer.from(`${wp().user}:${wp().password}`).toString('base64');
  const res = await fetch(`${wp().url}/?rest_route=/wp/v2/posts/${id}&context=edit`, { headers: { authorization: `Basic ${auth}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: number; title: { raw: string } };
}

async function proWithSite(page: Page, label: string) {
  const account = await signedInAccount(page, label, { plan: 'pro' });
  const res = await page.request.post('/api/wordpress/sites', {
    data: { siteUrl: wp().url, username: wp().user, appPassword: wp().password },
  });
  expect(res.status()).toBe(201);
  return { ...account, siteId: (await res.json()).site.id as number };
}

/**
 * Nothing sticks out sideways at 390 px, no serious or critical axe finding (scripts on: axe runs
 * in the page), and a screenshot for the eye (E2E_SCREENSHOTS=1).
 */
async function phoneCheck(page: Page, testInfo: TestInfo, name: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  if (testInfo.project.use.javaScriptEnabled !== false) {
    const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${name} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  }
  await screenshotForEye(page, testInfo, `publish-${name}-${testInfo.project.name}`);
}

const setLanguage = (page: Page, language: 'en' | 'zh-HK') =>
  page.context().addCookies([{ name: 'language', value: language, url: process.env.E2E_BASE_URL! }]);

test.use({ viewport: { width: 390, height: 844 }, timezoneId: 'Asia/Hong_Kong' });

test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  const res = await fetch(`${wp().url}/?rest_route=/`, { signal: AbortSignal.timeout(5_000) }).catch((e: Error) => e);
  console.log(
    `[publishing-review.spec] the test WordPress answered: ${res instanceof Error ? String(res.cause ?? res) : `HTTP ${res.status}`}`,
  );
});

test('Test connection, then Save without typing the password again', async ({ page, jsEnabled }, testInfo) => {
  test.setTimeout(120_000);
  await signedInAccount(page, 'wp-test-save', { plan: 'pro' });

  await page.goto('/wordpress?add=1');
  const dialog = page.getByRole('dialog', { name: 'Add WordPress site' });
  await dialog.getByLabel('Site URL').fill(wp().url);
  await dialog.getByLabel('Username').fill(wp().user);
  await dialog.getByLabel('Application password').fill(wp().password);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('Connection successful!');
  // Without JavaScript the page came back from the server: the password is never sent back into
  // the field, and the dialog says the tested one is kept.
  if (!jsEnabled) {
    await expect(page.getByLabel('Application password')).toHaveValue('');
    await expect(page.getByText(w('en', 'sites.appPasswordTested'))).toBeVisible();
  }
  await phoneCheck(page, testInfo, 'site-tested');
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site added')).toBeVisible();
  await expect(page.getByTestId('site-row')).toHaveCount(1);

  // The same in Chinese, on the edit dialog's sibling: a second site added after a test.
  await setLanguage(page, 'zh-HK');
  await page.goto('/wordpress?add=1');
  const zhDialog = page.getByRole('dialog');
  await zhDialog
    .getByRole('textbox')
    .first()
    .fill(`${wp().url.replace('127.0.0.1', 'localhost')}/`);
  await zhDialog.getByRole('textbox').nth(1).fill(wp().user);
  await zhDialog.locator('input[type="password"]').fill(wp().password);
  await zhDialog.getByRole('button', { name: w('zh-HK', 'sites.testConnection') }).click();
  await expect(page.getByTestId('connection-result')).toBeVisible();
  if (!jsEnabled) await expect(page.getByText(w('zh-HK', 'sites.appPasswordTested'))).toBeVisible();
  await page.getByRole('button', { name: w('zh-HK', 'sites.save') }).click();
  await expect(page.getByText(w('zh-HK', 'sites.added'))).toBeVisible();
  await expect(page.getByTestId('site-row')).toHaveCount(2);
});

test('a result published again: the page links the post and asks; update keeps one post; times name both zones', async ({
  page,
  jsEnabled,
}, testInfo) => {
  test.setTimeout(180_000);
  const account = await proWithSite(page, 'wp-twice');
  const stamp = Date.now().toString(36);
  const title = `Twice ${stamp}`;
  const resultId = await completedResult(account.email, title);

  // First publish: no question asked.
  await page.goto(`/app/publish/${resultId}`);
  await expect(page.getByTestId('already-published')).toHaveCount(0);
  await phoneCheck(page, testInfo, 'now');
  await page.getByRole('button', { name: 'Publish now' }).click();
  await page.waitForURL('**/app?tab=results');
  const [first] = await published(resultId, 1);
  expect(first!.wp_link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

  // Again: the page says where it already is, links the post, and asks update or new.
  await page.goto(`/app/publish/${resultId}`);
  const warning = page.getByTestId('already-published');
  await expect(warning).toContainText(w('en', 'publish.existing.title', { site: new URL(wp().url).host }));
  await expect(warning.getByRole('link', { name: 'View the existing post' })).toHaveAttribute('href', first!.wp_link!);
  await phoneCheck(page, testInfo, 'again');
  // No choice made: the browser's own check (the radios are required) keeps the form from going.
  await page.getByRole('button', { name: 'Publish now' }).click();
  await expect(page).toHaveURL(new RegExp(`/app/publish/${resultId}`));
  expect(await publicationsOf(resultId)).toHaveLength(1);

  await page.getByLabel('Title', { exact: true }).fill(`${title} v2`);
  await warning.getByLabel('Update the existing post').check();
  await page.getByRole('button', { name: 'Publish now' }).click();
  await page.waitForURL('**/app?tab=results');
  await expect(page.getByText('Post updated')).toBeVisible();
  const [, update] = await published(resultId, 2);
  expect(update!.update_post_id).toBe(first!.wp_post_id);
  expect(update!.wp_post_id).toBe(first!.wp_post_id);
  expect((await wpPost(first!.wp_post_id!)).title.raw).toBe(`${title} v2`);

  // Schedule a new post instead: the form names the reader's zone (the browser's, known once
  // scripts ran; UTC said as such without them) and the site's when its clock differs (UTC here).
  await page.goto(`/app/publish/${resultId}?mode=schedule`);
  const zone = jsEnabled ? 'Asia/Hong_Kong' : 'UTC';
  await expect(page.getByTestId('zone-note')).toContainText(w('en', 'time.yourZone', { zone }));
  if (jsEnabled) await expect(page.getByTestId('site-zone')).toContainText('keeps its own time zone, UTC');
  else await expect(page.getByTestId('site-zone')).toHaveCount(0);
  await phoneCheck(page, testInfo, 'schedule');
  await page.getByLabel('Publish as a new post').check();
  await page.getByLabel('Date', { exact: true }).fill('2031-01-15');
  await page.getByLabel('Time', { exact: true }).fill('09:30');
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.waitForURL('**/app?tab=results');
  const third = (await publicationsOf(resultId))[2]!;
  expect(third).toMatchObject({ status: 'queued', update_post_id: null });

  // The scheduled list: the time with its zone; with the site's own clock too when it differs.
  await page.goto('/wordpress');
  const row = page.getByTestId('scheduled-row').filter({ hasText: title });
  if (jsEnabled) {
    await expect(row.getByTestId('zoned-time')).toHaveText(/Jan 15, 2031, 9:30\sAM (GMT\+8|HKT)/);
    await expect(row.getByTestId('site-time')).toHaveText(/Jan 15, 2031, 1:30\sAM UTC on the site/);
  } else {
    await expect(row.getByTestId('zoned-time')).toHaveText(/Jan 15, 2031, 9:30\sAM UTC/);
    await expect(row.getByTestId('site-time')).toHaveCount(0);
  }
  await phoneCheck(page, testInfo, 'wordpress');
  await setLanguage(page, 'zh-HK');
  await page.goto('/wordpress');
  if (jsEnabled) await expect(row.getByTestId('site-time')).toContainText('網站時間');
  await page.goto(`/app/publish/${resultId}`);
  // The latest publication now waits (the scheduled one): a new post is offered, not an update of a
  // post that does not exist yet.
  const zhWarning = page.getByTestId('already-published');
  await expect(zhWarning).toContainText(w('zh-HK', 'publish.existing.new'));
  await expect(zhWarning).toContainText(w('zh-HK', 'publish.existing.queuedHelp'));
  await expect(zhWarning.getByRole('radio')).toHaveCount(1);
  await phoneCheck(page, testInfo, 'again-zh');

  // The bulk page at 390 px too (its own tests are in wordpress.spec.ts).
  await page.goto(`/app/publish-bulk?ids=${resultId}`);
  await expect(page.getByTestId('bulk-selected')).toBeVisible();
  // Already on the site: listed with its post, and a choice before anything is queued.
  const bulkExisting = page.getByTestId('bulk-existing');
  await expect(bulkExisting).toContainText(w('zh-HK', 'bulk.existing.title_other', { count: '1', site: new URL(wp().url).host }));
  await expect(bulkExisting.getByRole('radio')).toHaveCount(3);
  await phoneCheck(page, testInfo, 'bulk-zh');
  await expect(bulkExisting.getByLabel(w('zh-HK', 'bulk.existing.skip'))).toBeVisible();
});

test('after failures: WordPress’s English explained in Chinese, and "retry now" publishes at once', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const account = await proWithSite(page, 'wp-retry-now');
  const title = `Retry ${Date.now().toString(36)}`;
  const later = new Date(Date.now() + 3 * 86_400_000).toISOString();
  const queued = await page.request.post('/api/wordpress/publish', {
    data: { siteId: account.siteId, title, content: '<p>After the outage</p>', status: 'future', publishDate: later },
  });
  expect(queued.status()).toBe(200);
  // As after a failed attempt during an outage, waiting on its backoff (the site answered in English).
  const id = await withDb(async (sql) => {
    const [p] = await sql<{ id: string }[]>`
      UPDATE wordpress_publications SET attempts = 1, last_error = 'You are not currently logged in.', last_error_code = 'rest_not_logged_in'
      WHERE title = ${title} RETURNING id`;
    return p!.id;
  });

  await setLanguage(page, 'zh-HK');
  await page.goto('/wordpress');
  const row = page.getByTestId('scheduled-row').filter({ hasText: title });
  await expect(row.getByTestId('publication-error')).toContainText(w('zh-HK', 'errors.rest_not_logged_in'));
  await expect(row.getByTestId('publication-error')).toContainText('「You are not currently logged in.」');
  await phoneCheck(page, testInfo, 'retry-zh');
  await row.getByRole('button', { name: w('zh-HK', 'scheduled.retryNow') }).click();
  await expect(page.getByText(w('zh-HK', 'scheduled.retrying'))).toBeVisible();
  await expect
    .poll(
      async () => (await withDb((sql) => sql<{ status: string }[]>`SELECT status FROM wordpress_publications WHERE id = ${id}`))[0]!.status,
      {
        timeout: 60_000,
      },
    )
    .toBe('published');
});
