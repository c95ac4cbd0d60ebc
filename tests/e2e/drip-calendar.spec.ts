import { axeViolations, expect, signedInAccount, test, withDb } from './fixtures';
import type { Page } from '@playwright/test';

// The drip schedule in Chromium, with and without JavaScript: selected results dripped under a site's
// schedule (the planned dates shown before anything is queued, then confirmed), the calendar
// showing them on their days, one moved and one canceled from it, and the schedule paused.

const wp = () => ({ url: process.env.E2E_WP_URL!, user: process.env.E2E_WP_USER!, password: process.env.E2E_WP_APP_PASSWORD! });

async function proWithResults(page: Page, label: string, titles: string[]) {
  const account = await signedInAccount(page, label, { plan: 'pro' });
  const res = await page.request.post('/api/wordpress/sites', {
    data: { siteUrl: wp().url, username: wp().user, appPassword: wp().password },
  });
  expect(res.status()).toBe(201);
  const ids = await withDb(async (sql) => {
    const [user] = await sql<{ id: string }[]>`SELECT id FROM users WHERE lower(email) = lower(${account.email})`;
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'm', ${titles.length}) RETURNING id`;
    const out: string[] = [];
    for (const [i, title] of titles.entries()) {
      const [r] = await sql<{ id: string }[]>`
        INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits)
        VALUES (${user!.id}, ${run!.id}, ${i}, 'text', ${title}, ${title}, ${`<p>Body of ${title}</p>`}, 'completed', 'm', 1) RETURNING id`;
      out.push(r!.id);
    }
    return out;
  });
  return { ...account, ids };
}

test('drip: preview, confirm, then the calendar moves, cancels and pauses', async ({ page, jsEnabled }) => {
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  const titles = [1, 2, 3].map((i) => `Drip ${stamp} ${i}`);
  const { ids } = await proWithResults(page, 'drip', titles);

  await page.goto(`/app/publish-bulk?ids=${ids.join(',')}`);
  await page.getByLabel("Drip under the site's schedule").check();
  const fields = page.getByTestId('drip-fields');
  await expect(fields).toBeVisible();
  // The first of next year's June: Tuesday 1 June 2027 is a weekday.
  await fields.getByLabel('From').fill('2027-06-01');
  await fields.getByLabel('Posts a day (at most)').fill('2');
  await page.getByRole('button', { name: jsEnabled ? 'Preview the dates' : 'Queue 3 posts' }).click();

  const preview = page.getByTestId('drip-preview');
  await expect(preview.getByRole('heading', { name: 'Planned dates of 3 posts' })).toBeVisible();
  await expect(preview.getByTestId('drip-preview-row')).toHaveCount(3);
  // Nothing is queued before the confirmation.
  expect(await withDb((sql) => sql`SELECT 1 FROM wordpress_publications WHERE result_id = ANY(${ids})`)).toHaveLength(0);
  if (jsEnabled) {
    const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => v.id)).toEqual([]);
  }
  await preview.getByRole('button', { name: 'Confirm and schedule 3 posts' }).click();
  await page.waitForURL(/\/app\/calendar\?site=\d+&month=2027-06/);
  await expect(page.getByText('3 posts scheduled')).toBeVisible();
  await expect(page.getByTestId('calendar-entry')).toHaveCount(3);
  // Two on the first day (N = 2), the third on the next weekday.
  await expect(page.locator('[data-date="2027-06-01"]').getByTestId('calendar-entry')).toHaveCount(2);
  await expect(page.locator('[data-date="2027-06-02"]').getByTestId('calendar-entry')).toHaveCount(1);
  if (jsEnabled) {
    const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => v.id)).toEqual([]);
  }

  // Move the third to Friday 10:30 (inside the window), from its own <details>.
  const third = page.locator('[data-date="2027-06-02"]').getByTestId('calendar-entry');
  await third.locator('summary').click();
  await third.getByLabel('Date').fill('2027-06-04');
  await third.getByLabel('Time').fill('10:30');
  await third.getByRole('button', { name: 'Move' }).click();
  await expect(page.getByText('Scheduled post moved')).toBeVisible();
  await expect(page.locator('[data-date="2027-06-04"]').getByTestId('calendar-entry')).toContainText(titles[2]!);

  // Cancel the first.
  const first = page.locator('[data-date="2027-06-01"]').getByTestId('calendar-entry').first();
  await first.locator('summary').click();
  await first.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('Scheduled post canceled')).toBeVisible();
  await expect(page.getByTestId('calendar-entry')).toHaveCount(2);

  // Pause: the posts show as held; resumed before any came due, they keep their days.
  await page.getByRole('button', { name: /^Pause/ }).click();
  await expect(page.getByText('Drip schedule paused')).toBeVisible();
  await expect(page.locator('[data-status="held"]')).toHaveCount(2);
  await page.getByRole('button', { name: /^Resume/ }).click();
  await expect(page.getByText('Drip schedule resumed')).toBeVisible();
  await expect(page.locator('[data-status="queued"]')).toHaveCount(2);
  await expect(page.locator('[data-date="2027-06-04"]').getByTestId('calendar-entry')).toContainText(titles[2]!);
});
