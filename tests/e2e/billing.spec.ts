import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createAccount, expect as baseExpect, signedInAccount, test, withDb } from './fixtures';

// Sign-in hashing and two payments run on a shared two-core machine: allow slow steps.
const expect = baseExpect.configure({ timeout: 30_000 });

// Billing end to end, in both projects (with JavaScript and without): a Free user upgrades on the
// Stripe test server's hosted page, comes back to 45 credits and the Pro badge, buys a top-up,
// and cancels with the warning about losing top-up credits. The Stripe test server is started by
// global-setup.ts (STRIPE_API_BASE) and signs its webhooks like Stripe.

const stripeUrl = () => {
  const url = process.env.E2E_STRIPE_URL;
  if (!url) throw new Error('E2E_STRIPE_URL is not set: run through tests/playwright.config.ts');
  return url;
};

test('subscribe, pay on Stripe, 45 credits and the Pro badge, buy a top-up, cancel', async ({ page, jsEnabled }) => {
  // A long journey (two payments, a cancel, the portal) on a shared two-core machine.
  test.setTimeout(180_000);
  await signedInAccount(page, `billing-${jsEnabled ? 'js' : 'nojs'}`);

  await test.step('Free: the Pro card offers Subscribe, top-ups need Pro', async () => {
    await page.goto('/subscription');
    await expect(page.getByTestId('current-plan-badge')).toHaveText('Free');
    await expect(page.getByTestId('plan-free').getByTestId('current-plan-marker')).toBeVisible();
    await expect(page.getByTestId('topup-requires-pro')).toHaveText('Top-up purchase requires Pro subscription');
    await expect(page.getByTestId('buy-topup-100')).toBeDisabled();
    await expect(page.getByTestId('plan-pro')).toContainText('45 credits per month');
  });

  await test.step('Subscribe → Stripe Checkout → pay → back on /subscription', async () => {
    await page.getByTestId('subscribe-pro').click();
    await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/pay/cs_`));
    await expect(page.getByTestId('mode')).toHaveText('subscription');
    await expect(page.getByTestId('locale')).toHaveText('en');
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect(page).toHaveURL(/\/subscription/);
    await expect(page.getByTestId('payment-success')).toContainText('Payment successful');
    await expect(page.getByTestId('monthly-credits')).toHaveText('45');
    await expect(page.getByTestId('current-plan-badge')).toHaveText('Pro');
    await expect(page.getByRole('banner').getByText('Pro', { exact: true }).first()).toBeVisible();
    if (jsEnabled) await expect(page).toHaveURL(/\/subscription$/); // the query string is cleared
  });

  await test.step('buy the 100-credit pack', async () => {
    await page.goto('/subscription');
    await page.getByTestId('buy-topup-100').click();
    await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/pay/cs_`));
    await expect(page.getByTestId('mode')).toHaveText('payment');
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect(page.getByTestId('payment-success')).toContainText('100 credits were added');
    await expect(page.getByTestId('topup-credits')).toHaveText('100');
    await expect(page.getByTestId('total-credits')).toHaveText('145');
  });

  await test.step('cancel: the confirmation warns about the top-up credits; Pro (Ending) after', async () => {
    await page.goto('/subscription');
    await page.getByTestId('cancel-subscription').click();
    await expect(page.getByTestId('cancel-subscription-panel').getByTestId('topup-loss-warning')).toHaveText(
      'You have 100 top-up credits. They will be lost when your subscription ends.',
    );
    await page.getByTestId('cancel-subscription-panel').getByTestId('confirm-cancel').click();
    await expect(page.getByText('Subscription canceled')).toBeVisible();
    await expect(page.getByTestId('current-plan-badge')).toHaveText('Pro (Ending)');
    await expect(page.getByTestId('canceled-alert')).toBeVisible();
    await expect(page.getByTestId('subscribe-pro')).toHaveText('Resubscribe');
    await expect(page.getByTestId('buy-topup-100')).toBeDisabled();
  });

  await test.step('Manage billing opens the Stripe customer portal', async () => {
    await page.getByTestId('manage-billing').click();
    await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/portal/bps_`));
    await expect(page.getByTestId('portal-customer')).toContainText('cus_');
  });
});

test('a canceled payment shows the canceled banner; a return while signed out goes through the sign-in', async ({ page }) => {
  test.setTimeout(120_000);
  // Signing in through the pages is part of this story: an account with a password, then signed out.
  const account = await createAccount(page, 'billing-return');
  await page.context().clearCookies();

  await test.step('signed out: the sign-in says why, and the parameters survive it', async () => {
    await page.goto('/subscription?canceled=true');
    await expect(page).toHaveURL(/\/auth\?redirectTo=/);
    await expect(page.getByTestId('payment-login-required')).toContainText('Please log in to complete your subscription process.');
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page.getByTestId('payment-canceled')).toContainText('No charges were made');
  });

  await test.step("Checkout, then cancel on Stripe's page", async () => {
    await page.goto('/subscription');
    await page.getByTestId('subscribe-pro').click();
    await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/pay/cs_`));
    await page.getByRole('link', { name: 'Cancel' }).click();
    await expect(page.getByTestId('payment-canceled')).toContainText('Payment canceled');
    await expect(page.getByTestId('current-plan-badge')).toHaveText('Free');
  });
});

// The return page says only what the server verified. Stripe's webhooks for
// this payment are held back (the hosted page's ?hold=webhooks), so the first render of the return
// page (without JavaScript in the no-js project) must have fulfilled the session itself; the late
// webhooks then book nothing more, and `ledger verify` passes.
test('the return page shows the booked balance on first render, before any webhook; a forged one claims nothing', async ({ page }) => {
  test.setTimeout(120_000);
  const account = await signedInAccount(page, 'billing-verified');

  await test.step('a forged success URL claims nothing', async () => {
    await page.goto('/subscription?success=true&isTopUp=true&creditAmount=5000&session_id=cs_test_doesnotexist');
    await expect(page.getByTestId('payment-unverified')).toContainText('We could not confirm this payment');
    await expect(page.getByTestId('payment-success')).toHaveCount(0);
    await expect(page.getByText(/5,?000 credits/)).toHaveCount(0);
    await expect(page.getByTestId('total-credits')).toHaveText('5');
  });

  let sessionId = '';
  await test.step('the Pro card warns about the Free credits before Subscribe', async () => {
    await page.goto('/subscription');
    await expect(page.getByTestId('plan-pro').getByTestId('free-credits-forfeit')).toContainText(
      'the 5 credits you have left are forfeited when Pro starts',
    );
    await page.getByTestId('subscribe-pro').click();
    await expect(page).toHaveURL(new RegExp(`^${stripeUrl()}/pay/cs_`));
    sessionId = new URL(page.url()).pathname.split('/').pop()!;
  });

  await test.step('paid with the webhooks held back: the first render shows Pro and 45 credits', async () => {
    await page.goto(`${stripeUrl()}/pay/${sessionId}?hold=webhooks`);
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect(page).toHaveURL(/\/subscription/);
    await expect(page.getByTestId('payment-success')).toContainText('Your Pro subscription is active');
    await expect(page.getByTestId('current-plan-badge')).toHaveText('Pro');
    await expect(page.getByTestId('monthly-credits')).toHaveText('45');
    await expect(page.getByTestId('total-credits')).toHaveText('45');
    await expect(page.getByRole('banner').getByTestId('credit-balance').first()).toContainText('45');
  });

  await test.step('the late webhooks book nothing more; ledger verify passes', async () => {
    const released = await fetch(`${stripeUrl()}/_test/release`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session: sessionId }),
    });
    expect(((await released.json()) as { delivered: number[] }).delivered).toEqual([200, 200, 200]);
    await withDb(async (sql) => {
      // The stored events are applied by a worker: wait for them, then count what was booked.
      await expect
        .poll(async () => (await sql`SELECT count(*)::int AS n FROM billing_events WHERE processed_at IS NULL`)[0]!.n, { timeout: 30_000 })
        .toBe(0);
      const grants = await sql`
        SELECT e.amount FROM ledger_entries e JOIN users u ON u.id = e.user_id
        WHERE u.email = ${account.email} AND e.kind = 'monthly_grant' ORDER BY e.seq`;
      expect(grants.map((g) => Number(g.amount))).toEqual([5, 45]);
    });
    await page.reload();
    await expect(page.getByTestId('total-credits')).toHaveText('45');
    const { stdout } = await promisify(execFile)(process.execPath, ['build/server/ledger.js', 'verify'], {
      // Production settings, so the CLI generates no development secrets in the work tree.
      env: {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: process.env.E2E_DATABASE_URL!,
        SESSION_SECRET: 'e2e-ledger-cli-secret-0123456789',
        ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      },
    });
    expect(stdout).toContain('OK: the ledger verifies');
  });
});
