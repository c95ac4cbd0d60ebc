import { expect, test } from './fixtures';

// Times are shown in the reader's time zone (from the browser, kept in a cookie, used by
// the server render), not in UTC; UTC, labelled as such, until the zone is known (no JavaScript).

test.describe('times in the reader time zone', () => {
  test.use({ timezoneId: 'Asia/Hong_Kong' });

  test('the credit history and the chart speak Hong Kong time', async ({ page, jsEnabled, signedIn }) => {
    await signedIn('time-zone');
    // The first page a browser opens keeps its zone in a cookie (with JavaScript).
    await page.goto('/app');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'tz')?.value).toBe(jsEnabled ? encodeURIComponent('Asia/Hong_Kong') : undefined);

    await page.goto('/subscription');
    // The server's HTML itself (same cookies), not only the page after hydration.
    const html = (await (await page.request.get('/subscription')).text()).replace(/<!--.*?-->/g, '');
    const time = page.getByTestId('credit-history').locator('time').first();
    const iso = (await time.getAttribute('datetime'))!;
    const zone = jsEnabled ? 'Asia/Hong_Kong' : 'UTC';
    const date = new Date(iso).toLocaleDateString('en', { dateStyle: 'medium', timeZone: zone });
    const clock = new Date(iso).toLocaleTimeString('en', { timeStyle: 'short', timeZone: zone }) + (jsEnabled ? '' : ' UTC');
    expect(html).toContain(`>${date}</span>`);
    expect(html).toContain(`>${clock}</span>`);
    await expect(time).toContainText(date);
    await expect(time).toContainText(clock);
    if (jsEnabled) await expect(time).not.toContainText('UTC');
    const day = new Date(iso).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: zone });
    await expect(page.getByTestId('balance-chart-x')).toHaveText(day);
  });
});
