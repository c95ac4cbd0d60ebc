import { expect, extractLink, register, test, uniqueEmail, waitForEmail } from './fixtures';

/** A real set-password link (a made-up token shows no form at all). */
async function setPasswordLink(page: import('@playwright/test').Page, label: string): Promise<string> {
  const email = uniqueEmail(label);
  await register(page, 'Validation Tester', email);
  return extractLink(await waitForEmail(email));
}

// The same messages with JavaScript (Conform validates in the browser) and without it (the server
// validates the plain form post and renders the page again with the errors).
test.describe('form validation messages', () => {
  test('reset password: short password', async ({ page }) => {
    await page.goto(await setPasswordLink(page, 'short'));
    await page.getByLabel('New password').fill('abc');
    await page.getByLabel('Confirm password').fill('abc');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText('Password must be at least 6 characters').first()).toBeVisible();
    await expect(page.getByLabel('New password')).toHaveAttribute('aria-invalid', 'true');
    await expect(page).toHaveURL(/\/reset-password/);
  });

  test("reset password: passwords don't match", async ({ page }) => {
    await page.goto(await setPasswordLink(page, 'mismatch'));
    await page.getByLabel('New password').fill('abcdef1');
    await page.getByLabel('Confirm password').fill('abcdef2');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText("Passwords don't match")).toBeVisible();
    await expect(page.getByLabel('Confirm password')).toHaveAttribute('aria-invalid', 'true');
  });

  test('login: invalid e-mail and short password', async ({ page, jsEnabled }) => {
    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && posts.push(r.url())));
    await page.goto('/auth');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password', { exact: true }).fill('123');
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page.getByText('Please enter a valid email address')).toBeVisible();
    await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();
    await expect(page).toHaveURL(/\/auth/);
    // With JavaScript the browser catches it before sending; without, the server answers the post.
    expect(posts.filter((url) => new URL(url).pathname === '/auth')).toHaveLength(jsEnabled ? 0 : 1);
  });

  test('login: wrong password', async ({ page }) => {
    await page.goto('/auth');
    await page.getByLabel('Email').fill(uniqueEmail('nobody'));
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Login' }).click();
    const alert = page.getByRole('alert');
    await expect(alert.getByText('Login failed')).toBeVisible();
    await expect(alert.getByText('Invalid email or password')).toBeVisible();
  });

  test('register: short name and invalid e-mail', async ({ page }) => {
    await page.goto('/auth?tab=register');
    await page.getByLabel('Full name').fill('A');
    await page.getByLabel('Email').fill('still-not-an-email');
    await page.getByRole('button', { name: 'Register' }).click();
    await expect(page.getByText('Name must be at least 2 characters')).toBeVisible();
    await expect(page.getByText('Please enter a valid email address')).toBeVisible();
    await expect(page.getByText('Registration successful')).toHaveCount(0);
  });

  test('forgot password: invalid e-mail', async ({ page }) => {
    await page.goto('/forgot-password');
    await page.getByLabel('Email').fill('nope');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByText('Please enter a valid email address')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Check your email' })).toHaveCount(0);
  });
});
