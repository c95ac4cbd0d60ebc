import type { Locator, Page } from '@playwright/test';
import { axeViolations, expect, screenshotForEye, signedInAccount, test, text, withDb } from './fixtures';

// A run's internal links reviewed on its page, in both projects (JavaScript on:
// fetchers, no reload; off: plain form posts answered by redirects). A completed run with no site
// (its posts link to each other by /slug/): link it, read the proposals, remove one, re-link the
// post (the removed one stays removed), re-link the run; then once in zh-HK.
test.describe.configure({ timeout: 180_000 });

const TITLES = ['Espresso basics', 'Green tea brewing', 'Sourdough starter', 'Kimchi fermentation'];
const slugOf = (title: string) => `/${title.toLowerCase().replace(/ /g, '-')}/`;

/** A completed text run of four posts, each naming the other three after its first paragraph. */
async function completedRun(email: string): Promise<{ runId: string; ids: string[] }> {
  return withDb(async (sql) => {
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${email})`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'm', ${TITLES.length}) RETURNING id`;
    const ids: string[] = [];
    for (const [i, title] of TITLES.entries()) {
      const others = TITLES.filter((t) => t !== title);
      const content =
        `<h2>${title}</h2><p>This post is all about ${title.toLowerCase()}.</p>` +
        `<p>${others.map((o) => `Readers also ask about ${o.toLowerCase()} every week.`).join(' ')}</p>`;
      const [r] = await sql<{ id: string }[]>`
        INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, search_text)
        VALUES (${user!.id}, ${run!.id}, ${i + 1}, 'text', ${title}, ${title}, ${content}, 'completed', 'm', 1,
          ${`${title} ${others.join(' ')}`}) RETURNING id`;
      ids.push(r!.id);
    }
    return { runId: run!.id, ids };
  });
}

const toasts = (page: Page, language: 'en' | 'zh-HK') => page.getByRole('region', { name: text(language, 'common', 'toast.region') });
async function expectToast(page: Page, title: string, language: 'en' | 'zh-HK' = 'en') {
  await expect(toasts(page, language).getByText(title, { exact: true }).first()).toBeVisible({ timeout: 30_000 });
}

/** Clicks a form's button and waits for the app's answer to the post (a fetcher's or the page's). */
async function submit(page: Page, button: Locator) {
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/app/runs/'));
  await button.click();
  await answered;
}

/** The /slug/ targets of a post's kept links, in order. */
const targets = (post: Locator) => post.getByTestId('proposed-link').getByTestId('link-target').allTextContents();

/** Marks the page's window: still there after an action means it was not reloaded. */
const mark = (page: Page) => page.evaluate(() => ((window as unknown as { __kept?: number }).__kept = 1));
const stillMarked = (page: Page) => page.evaluate(() => (window as unknown as { __kept?: number }).__kept === 1);

test('a run with no site: link it, review, remove one, re-link the post and the run (the removed one stays removed)', async ({
  page,
  jsEnabled,
  baseURL,
}, testInfo) => {
  const account = await signedInAccount(page, 'links');
  const { runId, ids } = await completedRun(account.email);
  const first = page.locator(`#post-${ids[0]}`);

  await test.step('from the Results tab, a post leads to its links on the run page', async () => {
    await page.goto('/app?tab=results');
    const result = page.getByTestId('result').filter({ has: page.getByTestId('result-title').getByText(TITLES[0]!, { exact: true }) });
    if (jsEnabled) await mark(page);
    await result.getByRole('link', { name: 'Internal links' }).click();
    await expect(page).toHaveURL(new RegExp(`/app/runs/${runId}#post-${ids[0]}$`));
    await expect(first).toBeVisible();
    // With the script, the page follows the app's plain links inside the app, as a router link does.
    if (jsEnabled) expect(await stillMarked(page)).toBe(true);
  });

  await test.step('the panel: settings, the no-credits note, not linked yet', async () => {
    const panel = page.getByTestId('internal-links');
    await expect(panel.getByRole('heading', { name: 'Internal links' })).toBeVisible();
    await expect(panel.getByTestId('links-free')).toHaveText('Linking makes no AI call: it costs no credits.');
    await expect(panel.getByTestId('links-linked-at')).toHaveText('Not linked yet.');
    await expect(panel.getByLabel("Link this run's posts")).toBeChecked();
    await expect(panel.getByLabel('Links per post')).toHaveValue('3');
    await expect(page.getByTestId('link-post')).toHaveCount(4);
  });

  await test.step('link the run with 2 links per post', async () => {
    if (jsEnabled) await mark(page);
    await page.getByLabel('Links per post').fill('2');
    await submit(page, page.getByRole('button', { name: 'Link posts' }));
    await expectToast(page, 'Posts linked');
    for (const id of ids) await expect(page.locator(`#post-${id}`).getByTestId('proposed-link')).toHaveCount(2);
    await expect(page.getByTestId('links-summary')).toHaveText('8 links proposed across 4 posts');
    await expect(page.getByTestId('links-linked-at')).toContainText('Last linked');
    await expect(page.getByLabel('Links per post')).toHaveValue('2');
    if (jsEnabled) expect(await stillMarked(page)).toBe(true);
  });

  let removedTarget = '';
  await test.step('each proposal: anchor, target by /slug/, a post of this run, why', async () => {
    const link = first.getByTestId('proposed-link').first();
    removedTarget = (await link.getByTestId('link-target').textContent())!;
    const title = (await link.getByTestId('link-target-title').textContent())!;
    expect(TITLES).toContain(title);
    expect(title).not.toBe(TITLES[0]);
    expect(removedTarget).toBe(slugOf(title));
    await expect(link).toContainText('Post of this run');
    await expect(link.getByTestId('link-why')).toHaveText(/^Why: relevance \d+\.\d: /);
    // The anchor is in its sentence, highlighted.
    const anchor = (await link.getByTestId('link-anchor').textContent())!.replace(/^“|”$/g, '');
    await expect(link.locator('mark')).toHaveText(anchor);
  });

  await test.step('the panel passes axe (serious and critical rules) and is captured at 390 px', async () => {
    if (jsEnabled) {
      const violations = await axeViolations(page);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshotForEye(page.getByTestId('internal-links'), testInfo, `links-390-js${jsEnabled ? 1 : 0}`);
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  await test.step('remove one: it is listed as removed', async () => {
    if (jsEnabled) await mark(page);
    await submit(
      page,
      first
        .getByTestId('proposed-link')
        .first()
        .getByRole('button', { name: /^Remove the link on/ }),
    );
    await expectToast(page, 'Link removed');
    await expect(first.getByTestId('proposed-link')).toHaveCount(1);
    await expect(first.getByTestId('removed-links')).toContainText('1 removed link');
    expect(await targets(first)).not.toContain(removedTarget);
    if (jsEnabled) expect(await stillMarked(page)).toBe(true);
  });

  await test.step('re-link this post: two links again, never the removed one', async () => {
    await submit(page, first.getByRole('button', { name: /^Re-link this post/ }));
    await expectToast(page, 'Post linked again');
    await expect(first.getByTestId('proposed-link')).toHaveCount(2);
    expect(await targets(first)).not.toContain(removedTarget);
    await expect(first.getByTestId('removed-links')).toContainText('1 removed link');
    await first.getByTestId('removed-links').locator('summary').click();
    await expect(first.getByTestId('removed-link')).toContainText(removedTarget);
  });

  await test.step('re-link the run: the removed one stays removed', async () => {
    const button = page.getByRole('button', { name: 'Link posts' });
    if (jsEnabled) {
      // The answer is held until the button has shown that it is working (a fetcher: no navigation).
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const isRun = (url: URL) => url.pathname === `/app/runs/${runId}`;
      await page.route(isRun, async (route) => {
        if (route.request().method() === 'POST') await held;
        await route.continue();
      });
      const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/app/runs/'));
      await button.click();
      const busy = page.getByRole('button', { name: 'Linking…' });
      await expect(busy).toHaveAttribute('aria-busy', 'true');
      await expect(busy).toBeDisabled();
      release();
      await answered;
      await page.unroute(isRun);
    } else await submit(page, button);
    await expectToast(page, 'Posts linked');
    await expect(first.getByTestId('removed-links')).toContainText('1 removed link');
    expect(await targets(first)).not.toContain(removedTarget);
    for (const id of ids.slice(1)) await expect(page.locator(`#post-${id}`).getByTestId('proposed-link')).toHaveCount(2);
  });

  await test.step('a bad count is refused with a message, nothing changes', async () => {
    const count = page.getByLabel('Links per post');
    // The browser's own check is bypassed to reach the form's message.
    await count.evaluate((el) => el.removeAttribute('max'));
    await count.fill('12');
    // With JavaScript the form's own check answers (no post); without, the server's.
    if (jsEnabled) await page.getByRole('button', { name: 'Link posts' }).click();
    else await submit(page, page.getByRole('button', { name: 'Link posts' }));
    await expect(page.getByText('Links per post must be a whole number from 1 to 10.')).toBeVisible();
    await expect(first.getByTestId('proposed-link')).toHaveCount(2);
  });

  await test.step("the header's links: inside the app with the script, plain pages without it", async () => {
    if (jsEnabled) await mark(page);
    await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Subscription' }).click();
    await expect(page).toHaveURL(/\/subscription$/);
    await expect(page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Subscription' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    if (jsEnabled) expect(await stillMarked(page)).toBe(true);
  });

  await test.step('in zh-HK', async () => {
    await page.context().addCookies([{ name: 'language', value: 'zh-HK', url: baseURL! }]);
    await page.goto(`/app/runs/${runId}`);
    await expect(page.getByRole('heading', { name: '內部連結' })).toBeVisible();
    await expect(page.getByTestId('links-free')).toHaveText('建立連結不會呼叫 AI，不收取任何點數。');
    await expect(first.getByTestId('proposed-link').first()).toContainText('本批次的文章');
    await expect(first.getByTestId('removed-links')).toContainText('已移除 1 個連結');
    await submit(page, first.getByRole('button', { name: /^重新為此文章建立連結/ }));
    await expectToast(page, '已重新為文章建立連結', 'zh-HK');
    expect(await targets(first)).not.toContain(removedTarget);
    await submit(page, first.getByTestId('proposed-link').first().getByRole('button', { name: /^移除/ }));
    await expectToast(page, '已移除連結', 'zh-HK');
    await expect(first.getByTestId('removed-links')).toContainText('已移除 2 個連結');
  });
});
