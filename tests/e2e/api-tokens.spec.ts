import { axeViolations, expect, test } from './fixtures';

// Personal API tokens on the settings page, with and without JavaScript (both
// projects run this file): created with a name and an expiry, shown once, listed with its last
// use, usable as a Bearer token, and revoked (then refused at once). Both languages.

for (const language of ['en', 'zh-HK'] as const) {
  test.describe(`API tokens (${language})`, () => {
    test('create, see once, use, revoke', async ({ page, baseURL, jsEnabled, signedIn }) => {
      const zh = language === 'zh-HK';
      await signedIn(`tokens-${language}`);
      // The language the switcher would remember.
      if (zh) await page.context().addCookies([{ name: 'language', value: 'zh-HK', url: baseURL! }]);
      await page.goto('/app?settings=1');
      await page.getByRole('link', { name: zh ? '管理 API 權杖' : 'Manage API tokens' }).click();
      await expect(page).toHaveURL(/\/settings\/api-tokens$/);
      await expect(page.getByRole('heading', { level: 1, name: zh ? 'API 權杖' : 'API tokens' })).toBeVisible();
      await expect(page.getByText(zh ? '尚未有權杖。' : 'No tokens yet.')).toBeVisible();

      await page.getByLabel(zh ? '名稱' : 'Name').fill('Nightly export');
      await page.getByLabel(zh ? '到期' : 'Expires').selectOption('30');
      await page.getByRole('button', { name: zh ? '建立權杖' : 'Create token' }).click();
      const value = page.getByTestId('new-token-value');
      await expect(value).toHaveValue(/^pf_live_[0-9a-f]{64}$/);
      const token = await value.inputValue();
      await expect(
        page.getByText(
          zh
            ? '請立即複製。它不會再次顯示：我們只保留它的指紋。'
            : 'Copy it now. It will not be shown again: only a fingerprint of it is kept.',
        ),
      ).toBeVisible();
      const row = page.getByTestId('token-row').filter({ hasText: 'Nightly export' });
      await expect(row).toContainText(`pf_live_…${token.slice(-4)}`);
      await expect(row).toContainText(zh ? '有效' : 'Active');
      // axe reads the hydrated page (the js project).
      if (jsEnabled) expect(await axeViolations(page)).toEqual([]);

      // The token works for a script, and the list then shows its last use.
      const me = await fetch(`${baseURL}/api/user`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      await page.goto('/settings/api-tokens');
      expect(await page.content()).not.toContain(token);
      await expect(page.getByTestId('token-row').filter({ hasText: 'Nightly export' })).not.toContainText(zh ? '從未' : 'Never');

      await page.getByRole('button', { name: zh ? '撤銷權杖 Nightly export' : 'Revoke the token Nightly export' }).click();
      await expect(
        page.getByRole('region', { name: zh ? '通知' : 'Notifications' }).getByText(zh ? '權杖已撤銷' : 'Token revoked'),
      ).toBeVisible();
      await expect(page.getByTestId('token-row').filter({ hasText: 'Nightly export' })).toContainText(zh ? '已撤銷' : 'Revoked');
      const after = await fetch(`${baseURL}/api/user`, { headers: { authorization: `Bearer ${token}` } });
      expect(after.status).toBe(401);
    });
  });
}
