import type { Result } from 'axe-core';
import { axeViolations, expect, test } from './fixtures';

// axe-core on every public page, in both languages. Serious and critical violations fail the test;
// the rest are attached to the report (and printed) so they can be fixed over time.
const pages = [
  { name: 'landing', path: '/' },
  { name: 'auth (login)', path: '/auth' },
  { name: 'auth (register)', path: '/auth?tab=register' },
  { name: 'forgot password', path: '/forgot-password' },
  { name: 'forgot password (sent)', path: '/forgot-password?sent=1' },
  { name: 'reset password (invalid link)', path: '/reset-password' },
  { name: 'reset password (form)', path: '/reset-password?token=abcdefghijklmnopqrstuv&email=someone%40example.com' },
  { name: 'not found', path: '/this-page-does-not-exist', status: 404 },
];

const summary = (v: Result) => `${v.impact ?? 'n/a'} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`;

for (const language of ['en', 'zh-HK'] as const) {
  test.describe(`axe (${language})`, () => {
    // The markup is the same server render in both projects; with JavaScript the hydrated page is checked.
    test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, 'checked in the js project');

    for (const { name, path, status } of pages) {
      test(`${name} has no serious or critical violations`, async ({ page, baseURL }, testInfo) => {
        await page.context().addCookies([{ name: 'language', value: language, url: baseURL! }]);
        const response = await page.goto(path);
        expect(response?.status()).toBe(status ?? 200);
        await expect(page.locator('html')).toHaveAttribute('lang', language);
        const violations = await axeViolations(page);
        const minor = violations.filter((v) => v.impact !== 'serious' && v.impact !== 'critical');
        if (minor.length) {
          await testInfo.attach('axe-minor-violations', { body: minor.map(summary).join('\n'), contentType: 'text/plain' });
          console.log(`[axe ${language}] ${path}: ${minor.map(summary).join('; ')}`);
        }
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map(summary)).toEqual([]);
      });
    }
  });
}
