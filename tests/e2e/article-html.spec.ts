import { expect, test } from './fixtures';

// Untrusted article HTML in the browser, JS on and off: a model that answers raw HTML with
// its own <h1>, a broken <img src=x>, a tracking pixel and a relative /api/logout link. The
// results view shows the article with none of them: no broken image, no request to /x or to the
// tracker, no link to our own logout, the heading as the post's title rather than a second h1.
test.describe.configure({ timeout: 180_000 });

test('provider HTML: no broken image, no tracker, no relative link, no second h1', async ({ page, signedIn }) => {
  await signedIn('article-html');

  const start = await page.request.post('/api/generate/text', {
    data: { prompts: 'Basil at home [html]', model: 'openai/gpt-4o-mini-search-preview' },
  });
  expect(start.status()).toBe(200);
  const { jobId } = (await start.json()) as { jobId: string };
  await expect(async () => {
    const job = (await (await page.request.get(`/api/jobs/${jobId}`)).json()) as { status: string };
    expect(job.status).not.toBe('processing');
  }).toPass({ timeout: 60_000 });

  const asked: string[] = [];
  page.on('request', (r) => asked.push(r.url()));
  await page.goto('/app?tab=results');
  const result = page.getByTestId('result').filter({ hasText: 'Basil at home' });
  await expect(result.getByTestId('result-title')).toHaveText('Growing basil indoors');
  await result.locator('summary').first().click();
  const article = result.getByTestId('result-content');
  await expect(article).toContainText('Light matters.');
  await expect(article.getByRole('link', { name: 'a basil guide' })).toHaveAttribute('href', 'https://example.com/basil');
  // The relative link keeps its text but is no link.
  await expect(article).toContainText('Sign out here');
  await expect(article.getByRole('link', { name: 'Sign out here' })).toHaveCount(0);
  await expect(article.locator('img')).toHaveCount(0);
  await expect(article.locator('h1')).toHaveCount(0);
  await page.waitForLoadState('networkidle');
  const paths = asked.map((u) => new URL(u));
  expect(paths.filter((u) => u.pathname === '/x' || u.hostname === 'tracker.invalid').map(String)).toEqual([]);
  // Still signed in: nothing followed /api/logout.
  await page.goto('/app?tab=results');
  await expect(page).toHaveURL(/\/app/);
});
