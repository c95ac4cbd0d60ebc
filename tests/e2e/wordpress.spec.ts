import postgres from 'postgres';
import { createAccount, expect, logIn, test } from './fixtures';

// /wordpress against the real WordPress that global-setup starts: add a site (testing the
// connection first), edit it, make another the default, delete one, and move and cancel a
// scheduled post. Every step is a plain form post, so it runs with and without JavaScript.

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

async function makePro(email: string) {
  const sql = postgres(process.env.E2E_DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    await sql`UPDATE users SET subscription_status = 'pro' WHERE lower(email) = lower(${email})`;
  } finally {
    await sql.end();
  }
}

test('connect a WordPress site, manage it and its scheduled posts', async ({ page }) => {
  test.setTimeout(180_000);
  const account = await createAccount(page, 'wp-sites');
  await makePro(account.email);
  await logIn(page, account.email, account.password);
  await page.waitForURL('**/app');

  await page.goto('/wordpress');
  await expect(page.getByText('No sites connected yet')).toBeVisible();
  await page.getByRole('link', { name: 'Add site' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add WordPress site' });
  await expect(dialog).toBeVisible();

  // Validation messages of SPEC §5 (client-side with JavaScript, from the server without).
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
  expect(queued.status()).toBe(202);
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
