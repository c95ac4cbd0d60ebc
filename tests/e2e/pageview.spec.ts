import crypto from 'node:crypto';
import type { Page, Request } from '@playwright/test';
import { appUrl, expect, test, withDb } from './fixtures';

// Chromium does not expose sendBeacon bodies to the test, so the request is checked on the wire
// (a POST that the server answers 204) and its content in the page_views table.
const isPageView = (request: Request) => request.method() === 'POST' && new URL(request.url()).pathname === '/api/analytics/pageview';

async function expectBeacon(page: Page, action: () => Promise<unknown>) {
  const beacon = page.waitForRequest(isPageView);
  await action();
  const response = await (await beacon).response();
  expect(response?.status()).toBe(204);
}

test.describe('page-view beacon', () => {
  test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, 'the beacon needs JavaScript');

  test('a page view is posted on load and on every client-side navigation, and stored', async ({ page }) => {
    await expectBeacon(page, () => page.goto('/'));

    // Client-side route changes (Remix <Link>, no document request) report the new page too.
    const documents: string[] = [];
    page.on('request', (r) => void (r.resourceType() === 'document' && documents.push(r.url())));
    await expectBeacon(page, () => page.getByRole('link', { name: 'Log in / Register' }).first().click());
    await expect(page).toHaveURL(/\/auth$/);
    await expectBeacon(page, () => page.getByRole('link', { name: 'Forgot password?' }).click());
    await expect(page).toHaveURL(/\/forgot-password$/);
    expect(documents).toEqual([]);

    // A path no other test visits, so its rows can be found in the shared database.
    const unique = `/e2e-beacon-${crypto.randomBytes(5).toString('hex')}`;
    await expectBeacon(page, () => page.goto(`${unique}?secret=token-like-value`));
    await expectBeacon(page, () => page.getByRole('link', { name: 'Back to home' }).click());
    await expect(page).toHaveURL(`${appUrl()}/`);

    await withDb(async (sql) => {
      await expect
        .poll(async () =>
          sql`SELECT path, referrer, language, signed_in AS "signedIn" FROM page_views
                               WHERE path = ${unique} OR referrer = ${appUrl() + unique} ORDER BY id`.then((rows) => [...rows]),
        )
        .toEqual([
          // Typed-in address: no referrer. The query string (which could carry a token) is never stored.
          { path: unique, referrer: null, language: 'en', signedIn: false },
          { path: '/', referrer: appUrl() + unique, language: 'en', signedIn: false },
        ]);
    });
  });
});
