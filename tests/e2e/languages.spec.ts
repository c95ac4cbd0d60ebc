import { expect, extractLink, test, text, uniqueEmail, waitForEmail } from './fixtures';

test.describe('languages', () => {
  test.describe('a browser that prefers Chinese', () => {
    test.use({ locale: 'zh-TW' });

    test('gets the first response in zh-HK without any choice made', async ({ page }) => {
      const response = await page.goto('/auth');
      expect(await response?.text()).toContain('lang="zh-HK"');
      await expect(page.locator('html')).toHaveAttribute('lang', 'zh-HK');
      await expect(page.getByRole('heading', { name: text('zh-HK', 'auth', 'login.title') })).toBeVisible();
    });
  });

  test('switching on a public page reloads it in the other language and back', async ({ page }) => {
    await page.goto('/forgot-password');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await page.getByRole('group', { name: 'Language' }).getByRole('button', { name: '繁體中文' }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-HK');
    await expect(page).toHaveURL(/\/forgot-password$/);
    await expect(page.getByRole('heading', { name: text('zh-HK', 'auth', 'forgot.title') })).toBeVisible();
    await page
      .getByRole('group', { name: text('zh-HK', 'common', 'language.label') })
      .getByRole('button', { name: 'English' })
      .click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.getByRole('heading', { name: 'Forgot password' })).toBeVisible();
  });

  test('registering in zh-HK sends the set-password e-mail in zh-HK', async ({ page, baseURL }) => {
    await page.context().addCookies([{ name: 'language', value: 'zh-HK', url: baseURL! }]);
    const email = uniqueEmail('zh');
    await page.goto('/auth?tab=register');
    await page.getByLabel(text('zh-HK', 'auth', 'register.name')).fill('陳大文');
    await page.getByLabel(text('zh-HK', 'auth', 'register.email')).fill(email);
    await page.getByRole('button', { name: text('zh-HK', 'auth', 'register.submit') }).click();
    await expect(page.getByText(text('zh-HK', 'auth', 'register.successTitle'))).toBeVisible();

    const mail = await waitForEmail(email);
    expect(mail.subject).toBe(text('zh-HK', 'email', 'set-password.subject'));
    expect(mail.text).toContain('陳大文');
    expect(mail.html).toContain(text('zh-HK', 'email', 'set-password.button'));
    await page.goto(extractLink(mail));
    await expect(page.getByLabel(text('zh-HK', 'auth', 'reset.password'))).toBeVisible();
  });
});
