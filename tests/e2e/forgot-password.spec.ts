import {
  createAccount,
  expect,
  extractHtmlLink,
  extractLink,
  logIn,
  mailFor,
  password,
  setPasswordThroughLink,
  test,
  uniqueEmail,
  waitForEmail,
} from './fixtures';

async function requestReset(page: import('@playwright/test').Page, email: string) {
  await page.goto('/forgot-password');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  await expect(page.getByText("If an account exists for that address, we've sent a link to reset your password.")).toBeVisible();
  await expect(page.getByText("Didn't get it? Check your spam folder.")).toBeVisible();
}

test.describe('forgot password', () => {
  test('a registered address gets a reset e-mail whose link sets a new password', async ({ page }) => {
    const account = await createAccount(page, 'forgot');
    await page.context().clearCookies();

    await page.goto('/auth');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await requestReset(page, account.email);

    const mail = await waitForEmail(account.email, { count: 2 }); // the first was the set-password e-mail
    expect(mail.subject).toBe('Reset your Postforge password');
    const link = extractLink(mail);
    expect(extractHtmlLink(mail)).toBe(link);

    const newPassword = password();
    await setPasswordThroughLink(page, link, newPassword);
    await page.context().clearCookies();

    await logIn(page, account.email, account.password);
    await expect(page.getByRole('alert').getByText('Invalid email or password')).toBeVisible();
    await logIn(page, account.email, newPassword);
    await expect(page).toHaveURL(/\/app$/);
  });

  test('an unknown address sees the same confirmation and no e-mail is sent', async ({ page }) => {
    const unknown = uniqueEmail('unknown');
    await requestReset(page, unknown);

    // Ordering instead of a sleep: a reset asked for afterwards by a real account arrives, and by then
    // anything queued for the unknown address would have been sent too.
    const account = await createAccount(page, 'control');
    await page.context().clearCookies();
    await requestReset(page, account.email);
    await waitForEmail(account.email, { count: 2 });
    expect(await mailFor(unknown)).toEqual([]);
  });
});
