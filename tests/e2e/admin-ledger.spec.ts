import postgres from 'postgres';
import { axeViolations, createAccount, expect as baseExpect, logIn, test } from './fixtures';

// Issue 24 "every dollar traceable", in both projects (with JavaScript and without): an admin finds
// /admin/ledger from the account menu, sees an open finance flag with its money and acknowledges it.
const expect = baseExpect.configure({ timeout: 30_000 });

test('an admin finds the ledger from the account menu and acknowledges a finance flag', async ({ page, jsEnabled }) => {
  test.setTimeout(120_000);
  const account = await createAccount(page, `ledger-admin-${jsEnabled ? 'js' : 'nojs'}`);
  const ref = `refund:ch_e2e_${Date.now().toString(36)}_${jsEnabled ? 'js' : 'nojs'}@3000`;
  const sql = postgres(process.env.E2E_DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    await sql`UPDATE users SET role = 'admin' WHERE email = ${account.email}`;
    await sql`INSERT INTO billing_finance_flags (ref, user_id, kind, detail)
      SELECT ${ref}, id, 'topup_refund', ${sql.json({ amountRefunded: 3000, currency: 'usd', intended: 100, reversed: 70, shortfall: 30 })}
      FROM users WHERE email = ${account.email}`;
  } finally {
    await sql.end();
  }
  await logIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/app/);

  const header = page.getByRole('banner');
  await header.locator('summary').filter({ hasText: 'Account menu' }).filter({ visible: true }).click();
  await header.getByRole('link', { name: 'Ledger (admin)' }).filter({ visible: true }).click();
  await expect(page).toHaveURL(/\/admin\/ledger$/);

  const row = page.getByRole('row').filter({ hasText: ref });
  await expect(row).toContainText('Top-up refunded');
  await expect(row).toContainText('$30.00 (3000)');
  await expect(row.getByRole('cell', { name: '30', exact: true })).toBeVisible();
  if (jsEnabled) {
    const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => v.id)).toEqual([]);
  }

  await row.getByRole('button', { name: `Acknowledge flag ${ref}` }).click();
  await expect(page.getByRole('region', { name: 'Notifications' }).getByText('Flag acknowledged.')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: ref })).toHaveCount(0);
  await page.getByRole('link', { name: /^Acknowledged \(\d+\)$/ }).click();
  await expect(page.getByRole('row').filter({ hasText: ref })).toContainText(`Acknowledged by ${account.email}`);
});
