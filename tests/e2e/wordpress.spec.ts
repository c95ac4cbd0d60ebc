import { axeViolations, expect, signedInAccount, test, withDb } from './fixtures';
import type { Page } from '@playwright/test';

// /wordpress against the real WordPress that global-setup starts: add a site (testing the
// connection first), edit it, make another the default, delete one, and move and cancel a
// scheduled post. Every step is a plain form post, so it runs with and without JavaScript.

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

// When a test here fails, say whether the test WordPress itself still answers, so a site that went
// down is told apart from a fault of the app.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  let probe: string;
  try {
    const res = await fetch(`${wp().url}/?rest_route=/`, { signal: AbortSignal.timeout(5_000) });
    probe = `HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`;
  } catch (error) {
    probe = String((error as Error).cause ?? error);
  }
  console.log(`[wordpress.spec] the test WordPress at ${wp().url} answered: ${probe}`);
});

test('connect a WordPress site, manage it and its scheduled posts', async ({ page }) => {
  test.setTimeout(180_000);
  await signedInAccount(page, 'wp-sites', { plan: 'pro' });

  await page.goto('/wordpress');
  await expect(page.getByText('No sites connected yet')).toBeVisible();
  await page.getByRole('link', { name: 'Add site' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add WordPress site' });
  await expect(dialog).toBeVisible();

  // The site form's validation messages (client-side with JavaScript, from the server without).
  await dialog.getByRole('button', { name: 'Save site' }).click();
  await expect(dialog.getByText('Please enter a valid WordPress site URL')).toBeVisible();
  await expect(dialog.getByText('Username is required')).toBeVisible();

  await dialog.getByLabel('Site URL').fill(wp().url);
  await dialog.getByLabel('Username').fill(wp().user);
  await dialog.getByLabel('Application password').fill('wrong wrong wrong wrong');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('Connection failed. Please check your credentials and try again.');
  await expect(page.getByTestId('connection-result')).toContainText('Authorization header');

  await page.getByLabel('Application password').fill(wp().password);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('Connection successful! WordPress site is properly configured.');
  await page.getByLabel('Application password').fill(wp().password);
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site added')).toBeVisible();
  const host = new URL(wp().url).host;
  const rows = page.getByTestId('site-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(host);
  await expect(rows.first()).toContainText('Default');
  // The list is a 400 px scroll area.
  expect(await page.getByTestId('site-list').evaluate((el) => getComputedStyle(el).height)).toBe('400px');

  // A second site (same WordPress, another address form), made default, then deleted.
  await page.getByRole('link', { name: 'Add site' }).click();
  await page.getByLabel('Site URL').fill(`${wp().url.replace('127.0.0.1', 'localhost')}/`);
  await page.getByLabel('Username').fill(wp().user);
  await page.getByLabel('Application password').fill(wp().password);
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site added')).toBeVisible();
  await expect(rows).toHaveCount(2);
  await page.getByRole('button', { name: 'Make default' }).click();
  await expect(page.getByText('Default site updated')).toBeVisible();
  await expect(rows.first()).toContainText('localhost');

  // Edit keeps the stored password when the field is left blank.
  await page.getByRole('link', { name: /^Edit localhost/ }).click();
  await expect(page.getByLabel('Site URL')).toHaveValue(/localhost/);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('Connection successful!');
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site updated')).toBeVisible();

  await page.getByRole('link', { name: /^Delete localhost/ }).click();
  await expect(page.getByRole('dialog', { name: 'Delete this site?' })).toBeVisible();
  await page.getByRole('button', { name: 'Delete site' }).click();
  await expect(page.getByText('Site deleted')).toBeVisible();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Default');

  // A scheduled post (queued through the JSON API, as the publish dialog does) can be moved and canceled.
  const sites = await (await page.request.get('/api/wordpress/sites')).json();
  const when = new Date(Date.now() + 3 * 86_400_000).toISOString();
  const queued = await page.request.post('/api/wordpress/publish', {
    data: { siteId: sites.sites[0].id, title: 'E2E scheduled post', content: '<p>Later</p>', status: 'future', publishDate: when },
  });
  expect(queued.status()).toBe(200);
  await page.goto('/wordpress');
  const scheduled = page.getByTestId('scheduled-row');
  await expect(scheduled).toHaveCount(1);
  await expect(scheduled.first()).toContainText('E2E scheduled post');
  await scheduled.first().getByLabel('Time').fill('08:15');
  await scheduled.first().getByRole('button', { name: 'Move' }).click();
  await expect(page.getByText('Scheduled post moved')).toBeVisible();
  const moved = await (await page.request.get('/api/wordpress/scheduled')).json();
  expect(moved.scheduled[0].publishAt).not.toBe(when);
  await page.getByTestId('scheduled-row').first().getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('Scheduled post canceled')).toBeVisible();
  await expect(page.getByText('Nothing is waiting to be published.')).toBeVisible();
});

/** Completed text results for the account, straight into the database (generation is tested elsewhere). */
async function completedResults(email: string, titles: string[]): Promise<string[]> {
  return withDb(async (sql) => {
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'm', ${titles.length}) RETURNING id`;
    const ids: string[] = [];
    for (const [i, title] of titles.entries()) {
      const [r] = await sql<{ id: string }[]>`
        INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, created_at)
        VALUES (${user!.id}, ${run!.id}, ${i}, 'text', ${title}, ${title}, ${`<p>Body of ${title}</p>`}, 'completed', 'm', 1,
          now() - make_interval(secs => ${titles.length - i}))
        RETURNING id`;
      ids.push(r!.id);
    }
    return ids;
  });
}

async function failPublicationOf(resultId: string, code: string, message: string) {
  await withDb(
    (sql) => sql`
      UPDATE wordpress_publications SET status = 'failed', attempts = 13, last_error = ${message}, last_error_code = ${code}
      WHERE result_id = ${resultId}`,
  );
}

/** No serious or critical axe finding on the current page (scripts on only: axe runs in the page). */
async function accessible(page: Page, jsEnabled: boolean) {
  if (!jsEnabled) return;
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test('select results on the Results tab and publish them in bulk; each row shows its publication', async ({ page, jsEnabled }) => {
  test.setTimeout(180_000);
  const account = await signedInAccount(page, 'wp-bulk', { plan: 'pro' });
  const site = await page.request.post('/api/wordpress/sites', {
    data: { siteUrl: wp().url, username: wp().user, appPassword: wp().password },
  });
  expect(site.status()).toBe(201);
  const stamp = Date.now().toString(36);
  const titles = ['Alpha', 'Beta', 'Gamma'].map((t) => `${t} ${stamp}`);
  const [, beta] = await completedResults(account.email, titles);

  // Pick two results on the Results tab (checkboxes of a plain GET form), then the bulk page.
  await page.goto('/app?tab=results');
  const row = (title: string) => page.getByTestId('result').filter({ hasText: title });
  await row(titles[0]!).getByRole('checkbox').check();
  await row(titles[1]!).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Publish selected' }).click();
  await page.waitForURL('**/app/publish-bulk?**');
  await expect(page.getByTestId('bulk-selected')).toHaveText('2 results selected');
  await accessible(page, jsEnabled);

  // Spread over a schedule: tomorrow 09:30 in the browser's zone, then one every 2 days.
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('Spread over a schedule').check();
  await page.getByLabel('First post on').fill(tomorrow);
  await page.getByLabel('At', { exact: true }).fill('09:30');
  await page.getByLabel('Then one every').fill('2');
  await page.getByRole('button', { name: 'Queue 2 posts' }).click();
  await page.waitForURL('**/app?tab=wordpress');
  await expect(page.getByText('2 posts scheduled')).toBeVisible();
  await expect(page.getByTestId('scheduled-row')).toHaveCount(2);
  await accessible(page, jsEnabled);
  const scheduled = (await (await page.request.get('/api/wordpress/scheduled')).json()).scheduled as { publishAt: string }[];
  expect(new Date(scheduled[1]!.publishAt).getTime() - new Date(scheduled[0]!.publishAt).getTime()).toBe(2 * 86_400_000);

  // The third now as a draft, from the WordPress tab; the worker makes it on the real site.
  await page.getByTestId('integration-result').filter({ hasText: titles[2]! }).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Publish selected' }).click();
  await page.waitForURL('**/app/publish-bulk?**');
  await expect(page.getByTestId('bulk-selected')).toHaveText('1 result selected');
  await page.getByLabel('Draft (review in WordPress before it goes live)').check();
  await page.getByRole('button', { name: 'Queue 1 post' }).click();
  await page.waitForURL('**/app?tab=wordpress');
  await expect(page.getByText('1 post queued')).toBeVisible();

  // The rows: scheduled, a draft with the link to edit it in wp-admin, and (forced here) failed with the site's message.
  await failPublicationOf(beta!, 'rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.');
  await expect(async () => {
    await page.goto('/app?tab=results');
    await expect(row(titles[2]!).getByTestId('result-publication')).toHaveAttribute('data-publication-status', 'draft', {
      timeout: 1000,
    });
  }).toPass({ timeout: 60_000 });
  await expect(row(titles[2]!).getByTestId('result-publication')).toContainText('Saved as a draft on');
  await expect(row(titles[2]!).getByRole('link', { name: 'Open in WordPress' })).toHaveAttribute(
    'href',
    /^http:\/\/127\.0\.0\.1:\d+\/wp-admin\/post\.php\?post=\d+&action=edit$/,
  );
  await accessible(page, jsEnabled);
  await expect(row(titles[0]!).getByTestId('result-publication')).toHaveAttribute('data-publication-status', 'scheduled');
  await expect(row(titles[0]!).getByTestId('result-publication')).toContainText('Scheduled');
  await expect(row(titles[1]!).getByTestId('result-publication')).toContainText(
    // Explained in the reader's words (from WordPress's error code), the site's own text as detail.
    /Publishing to .+ failed: This WordPress user may not create posts\..*\(WordPress said: “Sorry, you are not allowed to create posts as this user\.”\)/,
  );
});

test('Free users: the WordPress tab shows the Pro alert and the upgrade prompt; results link to /wordpress without a site', async ({
  page,
}) => {
  const account = await signedInAccount(page, 'wp-free-tab');
  await completedResults(account.email, ['Free result']);
  await page.goto('/app?tab=results');
  await expect(page.getByRole('checkbox')).toHaveCount(0);
  await expect(page.getByTestId('result').getByRole('link', { name: 'Connect WordPress' })).toHaveAttribute('href', '/wordpress');
  const tab = page.getByRole('link', { name: /WordPress integration/ });
  await expect(tab).toContainText('Pro');
  await tab.click();
  await page.waitForURL('**/app?tab=wordpress');
  await expect(page.getByRole('alert').filter({ hasText: 'Pro Feature' })).toContainText('Publishing to WordPress is a Pro feature.');
  await page.getByRole('link', { name: 'Upgrade to Pro' }).click();
  await page.waitForURL('**/subscription');
});
