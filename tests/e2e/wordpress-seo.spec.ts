import type { Page } from '@playwright/test';
import { expect, signedInAccount, test, withDb } from './fixtures';

// SEO in the browser, with and without JavaScript, against the test WordPress: the site
// form's Classic HTML option and the companion plugin's download and install steps on /wordpress;
// a result's SEO fields edited in the result editor and on the publish page, arriving on the
// post (slug, excerpt) and, without the plugin active, the row saying the SEO meta was not written.
// (Blocks read back with parse_blocks() and the plugin's meta: tests/integration/wordpress-blocks-seo.test.ts.)

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });
const wpAuth = () => `Basic ${Buffer.from(`${wp().user}:${wp().password}`).toString('base64')}`;

const proAccount = (page: Page, label: string) => signedInAccount(page, label, { plan: 'pro' });

/** A completed text result made before SEO fields existed (NULL columns: the fields are derived). */
async function oldResult(email: string, title: string): Promise<string> {
  return withDb(async (sql) => {
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'm', 1) RETURNING id`;
    const [r] = await sql<{ id: string }[]>`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
      VALUES (${user!.id}, ${run!.id}, 0, 'text', ${title}, ${title}, ${`<h2>Start</h2><p>Body of ${title} for readers.</p><ul><li>One</li></ul>`},
        'completed', 'm', 1)
      RETURNING id`;
    return r!.id;
  });
}

test('the site form: Classic HTML per site, the SEO plugin to download with its install steps', async ({ page }) => {
  test.setTimeout(120_000);
  await proAccount(page, 'wp-classic');
  await page.goto('/wordpress?add=1');
  const dialog = page.getByRole('dialog', { name: 'Add WordPress site' });
  await dialog.getByLabel('Site URL').fill(wp().url);
  await dialog.getByLabel('Username').fill(wp().user);
  await dialog.getByLabel('Application password').fill(wp().password);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('Connection successful!');
  // Whether the companion plugin is active, as the site's REST index says.
  const index = (await (await fetch(`${wp().url}/?rest_route=/`)).json()) as { namespaces: string[] };
  const active = index.namespaces.includes('postforge/v1');
  await expect(page.getByTestId('seo-plugin-status')).toHaveAttribute('data-active', String(active));
  await expect(page.getByTestId('seo-plugin-status')).toContainText(active ? 'plugin is active' : 'plugin is not active');
  await page.getByLabel('Application password').fill(wp().password);
  await page.getByLabel('Send Classic HTML instead of blocks').check();
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site added')).toBeVisible();
  const row = page.getByTestId('site-row').first();
  await expect(row).toContainText('Classic HTML');
  const [site] = (await (await page.request.get('/api/wordpress/sites')).json()).sites as { id: number; classicHtml: boolean }[];
  expect(site!.classicHtml).toBe(true);

  // Turned off again through the edit form (the unchecked box sends nothing).
  await row.getByRole('link', { name: /^Edit/ }).click();
  await expect(page.getByLabel('Send Classic HTML instead of blocks')).toBeChecked();
  await page.getByLabel('Send Classic HTML instead of blocks').uncheck();
  await page.getByRole('button', { name: 'Save site' }).click();
  await expect(page.getByText('Site updated')).toBeVisible();
  await expect(page.getByTestId('site-row').first()).not.toContainText('Classic HTML');

  // The plugin: a download link and the steps; the file is the one-file plugin with exactly the six keys.
  const help = page.getByTestId('seo-plugin');
  await expect(help.getByRole('heading', { name: 'SEO fields plugin' })).toBeVisible();
  await expect(help).toContainText('wp-content/plugins/postforge-seo/');
  const link = help.getByRole('link', { name: 'Download postforge-seo.php' });
  const file = await page.request.get((await link.getAttribute('href'))!);
  expect(file.status()).toBe(200);
  const php = await file.text();
  expect(php).toContain('Plugin Name: Postforge SEO fields');
  expect([...php.matchAll(/'(_yoast_wpseo_\w+|rank_math_\w+)'/g)].map((m) => m[1]).sort()).toEqual(
    [
      '_yoast_wpseo_focuskw',
      '_yoast_wpseo_metadesc',
      '_yoast_wpseo_title',
      'rank_math_description',
      'rank_math_focus_keyword',
      'rank_math_title',
    ].sort(),
  );
  expect(php).toContain("current_user_can('edit_posts')");
});

test('SEO fields: edited on the result and on the publish page, they arrive with the post', async ({ page }) => {
  test.setTimeout(180_000);
  const account = await proAccount(page, 'wp-seo');
  const created = await page.request.post('/api/wordpress/sites', {
    data: { siteUrl: wp().url, username: wp().user, appPassword: wp().password },
  });
  expect(created.status()).toBe(201);
  const stamp = Date.now().toString(36);
  const title = `Seo result ${stamp}`;
  const id = await oldResult(account.email, title);

  // An old result shows derived fields; the editor saves the user's.
  await page.goto('/app?tab=results');
  const row = page.getByTestId('result').filter({ hasText: title });
  await row.getByText('Edit', { exact: true }).click();
  await expect(row.getByLabel('Slug')).toHaveValue(`seo-result-${stamp}`);
  await expect(row.getByLabel('Meta description')).toHaveValue(`Body of ${title} for readers.`);
  await expect(row.getByLabel('Meta description')).toHaveAttribute('maxlength', '155');
  await row.getByLabel('Meta description').fill(`Edited description ${stamp}`);
  await row.getByLabel('Slug').fill(`Edited Slug ${stamp}`);
  await row.getByLabel('Focus keyword').fill('edited keyword');
  // The title is edited here too (the H1 WordPress prints), and the SEO title beside the description.
  await expect(row.getByLabel('Title', { exact: true })).toHaveValue(title);
  await expect(row.getByLabel('SEO title')).toHaveValue(title);
  await expect(row.getByLabel('SEO title')).toHaveAttribute('maxlength', '60');
  await row.getByLabel('Title', { exact: true }).fill(`${title} renamed`);
  await row.getByLabel('SEO title').fill(`SEO ${stamp}`);
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Content saved')).toBeVisible();
  const saved = (await (await page.request.get(`/api/results/${id}`)).json()) as {
    result?: { seo: unknown; title: string };
    seo?: unknown;
    title?: string;
  };
  expect(saved.result?.title ?? saved.title).toBe(`${title} renamed`);
  expect(saved.result?.seo ?? saved.seo).toEqual({
    metaDescription: `Edited description ${stamp}`,
    slug: `edited-slug-${stamp}`,
    focusKeyword: 'edited keyword',
    seoTitle: `SEO ${stamp}`,
    stored: true,
  });

  // The publish page starts from the result's fields; changed there, they go with the post.
  await page.goto(`/app/publish/${id}`);
  await expect(page.getByLabel('Slug')).toHaveValue(`edited-slug-${stamp}`);
  await expect(page.getByLabel('Meta description')).toHaveValue(`Edited description ${stamp}`);
  await expect(page.getByLabel('SEO title')).toHaveValue(`SEO ${stamp}`);
  await page.getByLabel('Slug').fill(`published-${stamp}`);
  await page.getByLabel('Meta description').fill(`Published description ${stamp}`);
  await page.getByRole('button', { name: 'Publish now' }).click();
  await page.waitForURL('**/app?tab=results');

  // The worker publishes to the real site: the slug and (no excerpt of its own) the description as excerpt.
  await expect
    .poll(
      async () =>
        withDb(
          (sql) =>
            sql<{ wp_post_id: string | null; seo_written: boolean | null }[]>`
          SELECT wp_post_id, seo_written FROM wordpress_publications WHERE result_id = ${id} AND status = 'published'`,
        ).then((r) => r[0] ?? null),
      { timeout: 60_000 },
    )
    .not.toBeNull();
  const [publication] = await withDb(
    (sql) =>
      sql<
        { wp_post_id: string; seo_written: boolean }[]
      >`SELECT wp_post_id, seo_written FROM wordpress_publications WHERE result_id = ${id}`,
  );
  const post = (await (
    await fetch(`${wp().url}/?rest_route=${encodeURIComponent(`/wp/v2/posts/${publication!.wp_post_id}`)}&context=edit`, {
      headers: { Authorization: wpAuth() },
    })
  ).json()) as { slug: string; title: { raw: string }; excerpt: { raw: string }; content: { raw: string } };
  expect(post.title.raw).toBe(`${title} renamed`);
  expect(post.slug).toBe(`published-${stamp}`);
  expect(post.excerpt.raw).toBe(`Published description ${stamp}`);
  expect(post.content.raw).toMatch(/^<!-- wp:heading \{"postforgeMarker":"postforge[0-9a-f]+"\} -->\n<h2>Start<\/h2>/);

  // The row says whether the SEO meta was written (the plugin's state on the test site).
  const index = (await (await fetch(`${wp().url}/?rest_route=/`)).json()) as { namespaces: string[] };
  expect(publication!.seo_written).toBe(index.namespaces.includes('postforge/v1'));
  await page.goto('/app?tab=results');
  const status = page.getByTestId('result').filter({ hasText: title }).getByTestId('result-publication');
  await expect(status).toHaveAttribute('data-publication-status', 'published');
  if (!publication!.seo_written) await expect(status.getByTestId('seo-not-written')).toContainText('SEO fields not written');
});

test('in zh-HK: the plugin steps, the Classic HTML option and the SEO fields speak Cantonese', async ({ page }) => {
  test.setTimeout(120_000);
  const account = await proAccount(page, 'wp-seo-zh');
  const title = `Zh seo ${Date.now().toString(36)}`;
  await oldResult(account.email, title);
  // The language choice, as the header's switcher posts it (kept on the account).
  const chosen = await page.request.post('/language', { form: { language: 'zh-HK', redirectTo: '/wordpress' }, maxRedirects: 0 });
  expect(chosen.status()).toBeLessThan(400);
  await page.goto('/wordpress?add=1');
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-HK');
  await expect(page.getByTestId('seo-plugin').getByRole('heading', { name: 'SEO 欄位外掛' })).toBeVisible();
  await expect(page.getByRole('link', { name: '下載 postforge-seo.php' })).toBeVisible();
  await expect(page.getByLabel('以傳統 HTML 代替區塊傳送')).not.toBeChecked();
  await page.goto('/app?tab=results');
  const row = page.getByTestId('result').filter({ hasText: title });
  // The editor is built when opened (a closed one costs the page nothing): a details with the page's script, a page without it.
  await row.getByText('編輯', { exact: true }).click();
  await expect(row.getByLabel('Meta 描述')).toBeVisible();
  await expect(row.getByLabel('焦點關鍵字')).toBeVisible();
  await expect(row.getByLabel('SEO 標題')).toBeVisible();
  await expect(row.getByRole('textbox', { name: '文章標題', exact: true })).toBeVisible();
});
