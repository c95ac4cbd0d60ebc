import type { Page, TestInfo } from '@playwright/test';
import { expect, screenshotForEye, signedInAccount, test, text } from './fixtures';

// Phones: the header keeps its links on one line and the balance in view, the phone menu
// lists nothing twice, the chart's labels are readable and the history table shows every column;
// a new account's chart starts on its first day. Checked at 390 px and 1280 px, in en and zh-HK;
// with E2E_SCREENSHOTS=1, screenshots are kept in each test's output folder.

const languages = ['en', 'zh-HK'] as const;
const widths = [390, 1280] as const;

async function useLanguage(page: Page, baseURL: string, language: (typeof languages)[number]) {
  await page.context().addCookies([{ name: 'language', value: language, url: baseURL }]);
}

async function shot(page: Page, testInfo: TestInfo, name: string, fullPage = true) {
  await screenshotForEye(page, testInfo, name, fullPage);
}

/** The height of the header bar and whether any of its links or buttons wraps onto a second line. */
async function headerLayout(page: Page) {
  return page
    .locator('header')
    .first()
    .evaluate((header) => {
      const bar = header.firstElementChild as HTMLElement;
      const wrapped = [...bar.querySelectorAll('a, button, summary')]
        .filter((el) => (el as HTMLElement).offsetParent !== null)
        .filter((el) => {
          const style = getComputedStyle(el);
          const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
          return el.getBoundingClientRect().height > line * 1.9 + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
        })
        .map((el) => el.textContent);
      return { height: bar.getBoundingClientRect().height, overflow: bar.scrollWidth > bar.clientWidth + 1, wrapped };
    });
}

for (const width of widths) {
  for (const language of languages) {
    test.describe(`${width} px, ${language}`, () => {
      test.use({ viewport: { width, height: 844 } });

      test('landing header: one line, with a Log in link', async ({ page, baseURL }, testInfo) => {
        await useLanguage(page, baseURL!, language);
        await page.goto('/');
        const layout = await headerLayout(page);
        expect(layout).toEqual({ height: 64, overflow: false, wrapped: [] });
        const login = page
          .getByRole('banner')
          .getByRole('link', { name: text(language, 'common', width < 640 ? 'landing.nav.loginShort' : 'landing.nav.login') });
        await expect(login).toBeVisible();
        await shot(page, testInfo, `landing-${width}-${language}`, false);
      });

      test('the workspace: no page scrolls sideways, and without scripts the cost is confirmed before Start', async ({
        page,
        baseURL,
        jsEnabled,
        signedIn,
      }) => {
        await signedIn(`layout-ws-${width}-${language}`, { language });
        await useLanguage(page, baseURL!, language);
        const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        for (const path of [
          '/app?settings=1',
          '/app?tab=results',
          '/app?type=image',
          '/app/templates',
          '/settings/webhooks',
          '/settings/api-tokens',
        ]) {
          await page.goto(path);
          expect(await sideways(), path).toBeLessThanOrEqual(0);
        }
        await page.goto('/app');
        await page.locator('textarea[name="prompts"]').fill('First topic\nSecond topic');
        if (jsEnabled) {
          await expect(page.getByRole('button', { name: text(language, 'workspace', 'form.start') })).toBeVisible();
        } else {
          await page.getByRole('button', { name: text(language, 'workspace', 'form.start') }).click();
          await expect(page.getByTestId('confirm-start')).toBeVisible();
          await expect(page.getByRole('button', { name: text(language, 'workspace', 'form.confirmStart') })).toBeVisible();
        }
        expect(await sideways()).toBeLessThanOrEqual(0);
      });

      test('signed in: balance in the header, nothing twice in the menu, readable chart, whole table', async ({
        page,
        baseURL,
        jsEnabled,
      }, testInfo) => {
        test.slow();
        await signedInAccount(page, `layout-${width}-${language}`);
        await useLanguage(page, baseURL!, language);
        await page.goto('/subscription');
        await expect(page.locator('html')).toHaveAttribute('lang', language);
        expect(await headerLayout(page)).toEqual({ height: 64, overflow: false, wrapped: [] });
        // The balance shows in the bar itself, without opening any menu.
        await expect(page.getByRole('banner').getByTestId('credit-balance').filter({ visible: true })).toBeVisible();

        if (width < 768) {
          await page.getByRole('banner').locator('summary').filter({ visible: true }).click();
          const items = await page
            .getByRole('banner')
            .locator('details[open]')
            .locator('a, button')
            .filter({ visible: true })
            .evaluateAll((els) => els.map((el) => (el as HTMLElement).innerText.trim()).filter(Boolean));
          expect(items.length).toBeGreaterThan(3);
          expect(new Set(items).size, items.join(' | ')).toBe(items.length);
          await shot(page, testInfo, `menu-${width}-${language}-js${jsEnabled ? 1 : 0}`);
          await page.keyboard.press('Escape');
          await page.goto('/subscription');
        }

        // The chart: labels at least 11 px as rendered; a new account's series is its first day only.
        const chart = page.getByTestId('balance-chart');
        await expect(chart).toBeVisible();
        const sizes = await page
          .locator('[data-testid="balance-chart-x"] span, [data-testid="balance-chart-y"] span')
          .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().height > 0 && parseFloat(getComputedStyle(el).fontSize)));
        expect(sizes.length).toBeGreaterThan(0);
        for (const size of sizes) expect(size).toBeGreaterThanOrEqual(11);
        expect(await page.locator('[data-testid="balance-chart-x"] span').count()).toBe(1);

        // The history table: every column inside its box, nothing to scroll to.
        const table = page.getByTestId('credit-history');
        await expect(table).toBeVisible();
        const fits = await table.evaluate((el) => {
          const box = el.parentElement!;
          return {
            scroll: box.scrollWidth,
            client: box.clientWidth,
            page: document.documentElement.scrollWidth,
            viewport: window.innerWidth,
          };
        });
        expect(fits.scroll).toBeLessThanOrEqual(fits.client);
        expect(fits.page).toBeLessThanOrEqual(fits.viewport);
        await shot(page, testInfo, `subscription-${width}-${language}-js${jsEnabled ? 1 : 0}`);
      });
    });
  }
}
