import { axeViolations, expect as baseExpect, test, withDb } from './fixtures';

// Every dollar traceable, in both projects (with JavaScript and without): an admin finds
// /admin/ledger from the account menu, sees an open finance flag with its money and acknowledges it.
const expect = baseExpect.configure({ timeout: 30_000 });

test('an admin finds the ledger from the account menu and acknowledges a finance flag', async ({ page, jsEnabled, signedIn }) => {
  test.setTimeout(120_000);
  const account = await signedIn(`ledger-admin-${jsEnabled ? 'js' : 'nojs'}`, { role: 'admin' });
  const ref = `refund:ch_e2e_${Date.now().toString(36)}_${jsEnabled ? 'js' : 'nojs'}@3000`;
  await withDb(
    (sql) => sql`INSERT INTO billing_finance_flags (ref, user_id, kind, detail)
      VALUES (${ref}, ${account.id}, 'topup_refund', ${sql.json({ amountRefunded: 3000, currency: 'usd', intended: 100, reversed: 70, shortfall: 30 })})`,
  );
  await page.goto('/app');

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
