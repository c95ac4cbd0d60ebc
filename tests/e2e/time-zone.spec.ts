import { expect, test, withDb } from './fixtures';

// Times are shown in the user's time zone, a setting of the account: the browser's zone fills it
// the first time a page sees it (with JavaScript), the settings dialog changes it (with or without),
// and the server renders every page in it, so its HTML and the hydrated page say the same. (The
// Chinese texts: tests/integration/input-templates-settings.test.ts and wordpress-review.test.ts.)

test.describe('times in the user time zone', () => {
  test.use({ timezoneId: 'Asia/Hong_Kong' });

  test('the server and the browser show the same zone, learnt from the browser or chosen in the settings', async ({
    page,
    jsEnabled,
    signedIn,
  }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const account = await signedIn('time-zone');
    // A browser that has not been through the sign-in page: its zone is not told yet.
    await page.context().clearCookies({ name: 'tz' });
    const zoneOf = () =>
      withDb(async (sql) => (await sql<{ tz: string | null }[]>`SELECT time_zone AS tz FROM users WHERE id = ${account.id}`)[0]!.tz);
    const time = page.getByTestId('credit-history').locator('time').first();
    const shown = (iso: string, zone: string) => ({
      date: new Date(iso).toLocaleDateString('en', { dateStyle: 'medium', timeZone: zone }),
      clock: new Date(iso).toLocaleTimeString('en', { hour: 'numeric', minute: '2-digit', timeZone: zone, timeZoneName: 'short' }),
    });
    /** The page's credit history as the server's HTML has it (same cookies) and as the browser shows it. */
    const expectZone = async (zone: string) => {
      const iso = (await time.getAttribute('datetime'))!;
      const { date, clock } = shown(iso, zone);
      const html = (await (await page.request.get('/subscription')).text()).replace(/<!--.*?-->/g, '');
      expect(html).toContain(`>${date}</span>`);
      expect(html).toContain(`>${clock}</span>`);
      await expect(time).toContainText(date);
      await expect(time).toContainText(clock);
    };

    // The first page of a browser that has not told its zone: UTC, named, in the HTML and once
    // hydrated; with JavaScript the page then learns the browser's zone and shows it, and the account
    // keeps it. Without JavaScript the account has no zone and UTC stays, named.
    await page.goto('/subscription');
    if (jsEnabled) {
      await expect(time).toContainText('GMT+8');
      expect(await zoneOf()).toBe('Asia/Hong_Kong');
      await expectZone('Asia/Hong_Kong');
    } else {
      await expectZone('UTC');
      await expect(time).toContainText('UTC');
      expect(await zoneOf()).toBeNull();
    }

    // The settings dialog: another zone, then (with JavaScript) the browser's offered back; without
    // JavaScript Hong Kong chosen from the list.
    await page.goto('/subscription?settings=1');
    const picker = page.getByLabel('Time zone');
    await picker.selectOption(jsEnabled ? 'America/New_York' : 'Asia/Hong_Kong');
    if (jsEnabled) {
      await expect(page.getByTestId('browser-time-zone')).toHaveText('Your browser is set to Asia/Hong_Kong. Use it');
      await page.getByRole('button', { name: 'Use it' }).click();
      await expect(picker).toHaveValue('Asia/Hong_Kong');
    }
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByText('Settings Updated')).toBeVisible();
    expect(await zoneOf()).toBe('Asia/Hong_Kong');
    // A page loaded (and hydrated) afresh: the same zone in the HTML and in the browser.
    await page.goto('/subscription');
    await expectZone('Asia/Hong_Kong');
    const iso = (await time.getAttribute('datetime'))!;
    const day = new Date(iso).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'Asia/Hong_Kong' });
    await expect(page.getByTestId('balance-chart-x')).toHaveText(day);

    expect(errors).toEqual([]);
  });
});
