import { appUrl, expect, extractHtmlLink, extractLink, password, test, text, uniqueEmail, waitForEmail } from './fixtures';

// A newcomer's first visit: a newcomer opens the landing page, registers, receives the set-password e-mail,
// sets a password, signs in, lands in the workspace, switches to Traditional Chinese and signs out.
// Runs in both projects: with JavaScript and without it.
test('newcomer: register, set password from the e-mail, log in, switch to zh-HK, log out', async ({ page }) => {
  const email = uniqueEmail('newcomer');
  const name = 'Ada Newcomer';
  const secret = password();

  await test.step('landing page → /auth → Register tab', async () => {
    await page.goto('/');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await page.getByRole('link', { name: 'Log in / Register' }).first().click();
    await expect(page).toHaveURL(/\/auth(\?|$)/);
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Register' }).click();
    await expect(page).toHaveURL(/\/auth\?tab=register/);
  });

  await test.step('register with full name and e-mail', async () => {
    await page.getByLabel('Full name').fill(name);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Register' }).click();
    const toast = page.getByRole('region', { name: 'Notifications' });
    await expect(toast.getByText('Registration successful')).toBeVisible();
    await expect(toast.getByText('Please check your email for instructions to set your password.')).toBeVisible();
  });

  let link = '';
  await test.step('the set-password e-mail arrives with the link in both parts', async () => {
    const mail = await waitForEmail(email);
    expect(mail.subject).toBe('Set your Postforge password');
    expect(mail.to).toEqual([email]);
    link = extractLink(mail);
    const url = new URL(link);
    expect(url.origin).toBe(appUrl());
    expect(url.pathname).toBe('/reset-password');
    expect(url.searchParams.get('email')).toBe(email);
    expect(url.searchParams.get('token')?.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits, encoded
    expect(extractHtmlLink(mail)).toBe(link);
    expect(mail.text).toContain(`Hello ${name},`);
  });

  await test.step('follow the link: "Set your password", then signed in on /app with the welcome toast', async () => {
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
    await expect(page.getByText('Reset password')).toHaveCount(0);
    await page.getByLabel('New password').fill(secret);
    await page.getByLabel('Confirm password').fill(secret);
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page).toHaveURL(/\/app$/);
    await expect(page.getByRole('region', { name: 'Notifications' }).getByText('Welcome to Postforge')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome, Ada Newcomer' })).toBeVisible();
    // The used link shows no form any more.
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Link no longer valid' })).toBeVisible();
    await expect(page.getByLabel('New password')).toHaveCount(0);
  });

  await test.step('log in → /app with the header', async () => {
    await page.context().clearCookies();
    await page.goto('/auth');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page).toHaveURL(/\/app$/);
    await expect(page.getByRole('region', { name: 'Notifications' }).getByText('Login successful')).toBeVisible();
    const header = page.getByRole('banner');
    await expect(header.getByText('Free', { exact: true }).filter({ visible: true })).toBeVisible();
    await expect(header.getByText(/^\d+ credits?$/).filter({ visible: true })).toBeVisible();
    await expect(header.getByRole('link', { name: 'Text' })).toBeVisible();
    await expect(header.getByRole('link', { name: 'Subscription' })).toBeVisible();
    // Signed in, /auth sends the user on to the workspace.
    await page.goto('/auth');
    await expect(page).toHaveURL(/\/app$/);
  });

  await test.step('switch to Traditional Chinese → the page reloads in zh-HK', async () => {
    await page
      .getByRole('banner')
      .getByRole('group', { name: 'Language' })
      .filter({ visible: true })
      .getByRole('button', { name: '繁體中文' })
      .click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-HK');
    await expect(page).toHaveURL(/\/app$/);
    const header = page.getByRole('banner');
    await expect(header.getByText(text('zh-HK', 'common', 'plan.free'), { exact: true }).filter({ visible: true })).toBeVisible();
    await expect(page.getByText(text('zh-HK', 'common', 'workspace.subtitle'))).toBeVisible();
  });

  await test.step('log out → back on /, signed out', async () => {
    const header = page.getByRole('banner');
    // The account menu is a <details>: it opens without JavaScript too.
    await header
      .locator('summary')
      .filter({ hasText: text('zh-HK', 'common', 'header.account.menu') })
      .filter({ visible: true })
      .click();
    await header
      .getByRole('button', { name: text('zh-HK', 'common', 'header.account.logout') })
      .filter({ visible: true })
      .click();
    await expect(page).toHaveURL(`${appUrl()}/`);
    await expect(
      page.getByRole('region', { name: text('zh-HK', 'common', 'toast.region') }).getByText(text('zh-HK', 'auth', 'logout.title')),
    ).toBeVisible();
    await page.goto('/app');
    await expect(page).toHaveURL(`${appUrl()}/`);
  });
});
