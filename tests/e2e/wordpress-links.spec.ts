import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations, expect, signedInAccount, test } from './fixtures';

// Internal links on /wordpress, with and without JavaScript, against the real
// WordPress that global-setup starts: the per-site switch on the add and edit forms (on by default,
// costs no credits), how many of a site's posts are cached and when they were read, the Refresh
// posts button (a fetcher with its pending state with JavaScript, a form post and a toast without),
// and a site that cannot be read, told in the user's language.

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A text of the wordpress catalogue, e.g. words('zh-HK', 'sites.refreshFailed'). */
function words(language: 'en' | 'zh-HK', key: string): string {
  let node: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, 'app/locales', language, 'wordpress.json'), 'utf8'));
  for (const part of key.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'string') throw new Error(`No text ${language}/wordpress:${key}`);
  return node;
}

test('the internal-links switch of a site and its posts cache, refreshed from the site', async ({ page, jsEnabled, baseURL }) => {
  test.setTimeout(180_000);
  await signedInAccount(page, 'wp-links', { plan: 'pro' });

  // Adding a site: the switch is on by default and says it costs nothing; switched off here.
  await page.goto('/wordpress');
  await page.getByRole('link', { name: 'Add site' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add WordPress site' });
  const linksBox = dialog.getByLabel('Add internal links to posts published to this site');
  await expect(linksBox).toBeChecked();
  await expect(dialog.getByText(/makes no AI call and costs no credits/)).toBeVisible();
  await dialog.getByLabel('Site URL').fill(wp().url);
  await dialog.getByLabel('Username').fill(wp().user);
  await dialog.getByLabel('Application password').fill(wp().password);
  await linksBox.uncheck();
  await dialog.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site added')).toBeVisible();
  const host = new URL(wp().url).host;
  const row = page.getByTestId('site-row').filter({ hasText: host });
  await expect(row).toContainText('No internal links');
  await expect(row.getByTestId('site-posts')).toHaveText('Posts never read for internal links');
  const listed = (await (await page.request.get('/api/wordpress/sites')).json()) as { sites: { id: number; internalLinks: boolean }[] };
  expect(listed.sites).toEqual([expect.objectContaining({ internalLinks: false })]);
  const siteId = listed.sites[0]!.id;

  // Editing: the box shows the stored value; switched on again.
  await page.getByRole('link', { name: `Edit ${host}` }).click();
  const edit = page.getByRole('dialog', { name: 'Edit WordPress site' });
  await expect(edit.getByLabel('Add internal links to posts published to this site')).not.toBeChecked();
  await edit.getByLabel('Add internal links to posts published to this site').check();
  await edit.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site updated')).toBeVisible();
  await expect(row).not.toContainText('No internal links');
  expect(
    ((await (await page.request.get(`/api/wordpress/sites/${siteId}`)).json()) as { site: { internalLinks: boolean } }).site,
  ).toMatchObject({
    internalLinks: true,
  });

  // Refresh posts: with JavaScript the button shows the read under way (the post is held back until
  // that is seen, so the check does not race the site).
  const refresh = row.getByRole('button', { name: `Refresh posts of ${host}` });
  if (jsEnabled) {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname === '/wordpress',
      async (route) => {
        if (route.request().method() === 'POST') await held;
        await route.continue();
      },
    );
    await refresh.click();
    await expect(refresh).toHaveText('Reading posts…');
    await expect(refresh).toBeDisabled();
    release();
  } else {
    await refresh.click();
  }
  await expect(page.getByText('Posts read', { exact: true })).toBeVisible();
  const cached = (await (await page.request.get(`/api/wordpress/sites/${siteId}/posts`)).json()) as {
    posts: unknown[];
    refreshedAt: string;
  };
  expect(cached.posts.length).toBeGreaterThan(0);
  expect(cached.refreshedAt).toBeTruthy();
  await expect(row.getByTestId('site-posts')).toContainText(
    `${cached.posts.length} post${cached.posts.length === 1 ? '' : 's'} read for internal links · read `,
  );
  await expect(refresh).toHaveText('Refresh posts');
  // The row's new parts and the edit form's switch pass the accessibility checks.
  if (jsEnabled) {
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: `Edit ${host}` }).click();
    await expect(page.getByRole('dialog', { name: 'Edit WordPress site' })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.goto('/wordpress');
  }

  // A site that refuses the connection: nothing cached, the reason in the user's language.
  await page.getByRole('link', { name: 'Add site' }).click();
  await page.getByLabel('Site URL').fill('http://127.0.0.1:9');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Application password').fill('abcd efgh ijkl mnop');
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site added')).toBeVisible();
  const down = page.getByTestId('site-row').filter({ hasText: /127\.0\.0\.1:9(?!\d)/ });
  await down.getByRole('button', { name: 'Refresh posts of 127.0.0.1:9' }).click();
  await expect(page.getByText(words('en', 'sites.refreshFailed'))).toBeVisible();
  await expect(page.getByText(words('en', 'diagnosis.refused'))).toBeVisible();
  await expect(down.getByTestId('site-posts')).toHaveText('Posts never read for internal links');

  await page.context().addCookies([{ name: 'language', value: 'zh-HK', url: baseURL! }]);
  await page.goto('/wordpress');
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-HK');
  await expect(down.getByTestId('site-posts')).toHaveText(words('zh-HK', 'sites.postsNever'));
  await down.getByRole('button', { name: words('zh-HK', 'sites.refreshPostsLabel').replace('{{site}}', '127.0.0.1:9') }).click();
  await expect(page.getByText(words('zh-HK', 'sites.refreshFailed'))).toBeVisible();
  await expect(page.getByText(words('zh-HK', 'diagnosis.refused'))).toBeVisible();
});
