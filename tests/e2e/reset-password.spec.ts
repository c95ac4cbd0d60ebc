import {
  createAccount,
  expect,
  extractLink,
  logIn,
  password,
  setPasswordThroughLink,
  test,
  uniqueEmail,
  waitForEmail,
  register,
} from './fixtures';

test.describe('reset password: the link', () => {
  for (const [label, query] of [
    ['no token nor e-mail', ''],
    ['no token', '?email=someone%40example.com'],
    ['no e-mail', '?token=abcdefabcdefabcdefabcdef'],
  ] as const) {
    test(`invalid-link state when the URL has ${label}`, async ({ page }) => {
      await page.goto(`/reset-password${query}`);
      await expect(page.getByRole('heading', { name: 'Reset Link Invalid' })).toBeVisible();
      await expect(page.getByText('Invalid or missing reset token. Please request a new password reset.')).toBeVisible();
      await expect(page.getByLabel('New password')).toHaveCount(0);
      // The way out: a button-styled link to /forgot-password.
      await page.getByRole('link', { name: 'Request a new link' }).click();
      await expect(page).toHaveURL(/\/forgot-password$/);
      await expect(page.getByRole('heading', { name: 'Forgot password' })).toBeVisible();
    });
  }

  test('a set-password link works once; reusing it fails with a clear error', async ({ page }) => {
    const email = uniqueEmail('reuse');
    await register(page, 'Reuse Tester', email);
    const link = extractLink(await waitForEmail(email));
    const first = password();
    await setPasswordThroughLink(page, link, first);

    // Same link again: no form, a clear message and the way out; the first password stays.
    await page.context().clearCookies();
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Link no longer valid' })).toBeVisible();
    await expect(page.getByText('This link is invalid or has already been used. Please request a new password reset.')).toBeVisible();
    await expect(page.getByLabel('New password')).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Request a new link' })).toBeVisible();

    await logIn(page, email, 'another-secret');
    await expect(page.getByRole('alert').getByText('Invalid email or password')).toBeVisible();
    await logIn(page, email, first);
    await expect(page).toHaveURL(/\/app$/);
  });

  test('a made-up token is refused: no form', async ({ page }) => {
    const account = await createAccount(page, 'forged');
    await page.context().clearCookies();
    await page.goto(`/reset-password?token=${'A'.repeat(43)}&email=${encodeURIComponent(account.email)}`);
    await expect(page.getByText('This link is invalid or has already been used. Please request a new password reset.')).toBeVisible();
    await expect(page.getByLabel('New password')).toHaveCount(0);
  });
});
