import { expect, screenshotForEye, test } from './fixtures';

// The workspace's input tools in the browser, with and without JavaScript.
// Generous timeouts: the machine is shared.
test.describe.configure({ timeout: 120_000 });

test.describe('settings dialog and dark mode', () => {
  test('saves settings and keys (masked), applies dark mode from the first HTML (no flash)', async ({ page, signedIn }, testInfo) => {
    await signedIn('settings-dark');
    await page.goto('/app');
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await screenshotForEye(page, testInfo, 'app-light');

    await page.getByRole('link', { name: 'Settings' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText('No key saved.').first()).toBeVisible();
    await dialog.getByLabel('Text provider API key (OpenRouter)').fill('sk-or-e2e-secret-key-7788');
    await dialog.getByLabel('Dark mode').check();
    await dialog.getByLabel('Style preset').selectOption('anime');
    await dialog.getByRole('button', { name: 'Save settings' }).click();

    await expect(page.getByText('Settings Updated')).toBeVisible();
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    // No flash: the server's first HTML already carries the class.
    const html = await (await page.request.get('/app')).text();
    expect(html).toMatch(/<html[^>]*class="[^"]*\bdark\b/);
    for (const path of ['/app', '/subscription', '/wordpress', '/app/templates', '/no-such-page']) {
      await page.goto(path);
      await expect(page.locator('html')).toHaveClass(/\bdark\b/);
      await screenshotForEye(page, testInfo, `dark${path.replaceAll('/', '-') || '-root'}`);
    }

    // The key comes back masked, never in full; it can be removed.
    await page.goto('/app?settings=1');
    const again = page.getByRole('dialog', { name: 'Settings' });
    await expect(again.getByTestId('openRouterApiKey-mask')).toHaveText('Saved key: ••••7788');
    expect(await page.content()).not.toContain('sk-or-e2e-secret');
    await expect(again.getByLabel('Style preset')).toHaveValue('anime');
    await again.getByLabel('Remove this key').check();
    await again.getByLabel('Dark mode').uncheck();
    await again.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByText('Settings Updated')).toBeVisible();
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await page.goto('/app?settings=1');
    await expect(page.getByRole('dialog', { name: 'Settings' }).getByTestId('openRouterApiKey-mask')).toHaveText('No key saved.');
  });

  test('the subscription page opens the settings dialog; Escape or the close link closes it', async ({ page, jsEnabled, signedIn }) => {
    await signedIn('settings-sub');
    await page.goto('/subscription');
    await page.getByRole('main').getByRole('link', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect(dialog).toBeVisible();
    if (jsEnabled) {
      // Focus moves in, to the close link first. The dialog is modal (showModal): the page behind is
      // inert, so Tab and Shift+Tab go round the dialog's controls and, past either end, to the
      // browser's own controls (the document loses focus), never to the page behind.
      const close = dialog.getByRole('link', { name: 'Close' });
      await expect(close).toBeFocused();
      expect(await dialog.evaluate((el) => el instanceof HTMLDialogElement && el.matches(':modal'))).toBe(true);
      const where = () =>
        dialog.evaluate((el) => {
          const active = document.activeElement;
          if (!active || active === document.body) return 'browser';
          if (!el.contains(active)) return `outside: ${active.outerHTML.slice(0, 80)}`;
          return active === el.querySelector('a') ? 'close' : 'inside';
        });
      const controls = await dialog.locator('a[href], button, input:not([type=hidden]), select, textarea').count();
      for (const key of ['Tab', 'Shift+Tab']) {
        const seen: string[] = [];
        for (let i = 0; i < controls + 2; i++) {
          await page.keyboard.press(key);
          seen.push(await where());
          if (seen.at(-1) === 'close') break;
        }
        expect(
          seen.filter((s) => s.startsWith('outside')),
          `${key}: ${seen.join(', ')}`,
        ).toEqual([]);
        expect(seen.at(-1), `${key} comes back round to the close link`).toBe('close');
        expect(seen, `${key} visits the dialog's other controls`).toContain('inside');
      }
      await page.keyboard.press('Escape');
    } else await page.getByRole('link', { name: 'Close' }).click();
    await expect(page.getByRole('dialog', { name: 'Settings' })).toHaveCount(0);
    await expect(page).toHaveURL(/\/subscription$/);
    // Focus returns to the link that opened it.
    if (jsEnabled) await expect(page.getByRole('main').getByRole('link', { name: 'Settings' })).toBeFocused();
  });
});

test.describe('templates', () => {
  test('save current, list, load link, delete with confirmation (the templates page)', async ({ page, signedIn, jsEnabled }) => {
    await signedIn('templates');
    await page.goto('/app/templates?type=text');
    await expect(page.getByRole('heading', { name: 'Templates' })).toBeVisible();
    await expect(page.getByText('No templates found')).toBeVisible();
    await expect(page.getByText('Save your current settings as a template')).toBeVisible();

    await page.getByRole('link', { name: 'Save Current' }).click();
    const name = page.getByLabel('Template Name');
    await expect(name).toHaveAttribute('placeholder', 'My Template');
    await name.fill('Weekly how-tos');
    await page.getByRole('button', { name: 'Save Template' }).click();
    await expect(page.getByText('Template saved')).toBeVisible();
    const list = page.getByRole('list', { name: 'Saved templates' });
    await expect(list.getByText('Weekly how-tos', { exact: true })).toBeVisible();
    await expect(list.getByText(/GPT-4o mini Search/)).toBeVisible();
    await expect(page.getByRole('link', { name: 'Load template Weekly how-tos' })).toHaveAttribute(
      'href',
      /\/app\?template=[0-9a-f-]{36}$/,
    );

    // Image templates are listed apart, with the aspect ratio.
    await page.getByRole('main').getByRole('link', { name: 'Image', exact: true }).click();
    await expect(page.getByText('No templates found')).toBeVisible();
    await page.getByRole('link', { name: 'Save Current' }).click();
    await page.getByLabel('Template Name').fill('Square heroes');
    await page.getByRole('button', { name: 'Save Template' }).click();
    await expect(page.getByRole('list', { name: 'Saved templates' }).getByText(/16:9|1:1/)).toBeVisible();

    await page.getByRole('main').getByRole('link', { name: 'Text', exact: true }).click();
    await page.getByLabel('Delete template Weekly how-tos').click();
    await page.getByRole('button', { name: 'Delete template' }).click();
    await expect(page.getByText('Template deleted')).toBeVisible();
    await expect(page.getByText('No templates found')).toBeVisible();

    // The workspace's Save Current saves what the form holds now, not the last-used values.
    await page.goto('/app');
    await page.getByLabel('Tone of voice').selectOption('Friendly');
    await page.getByRole('button', { name: 'Save Current' }).click();
    if (jsEnabled) {
      await expect(page.getByRole('dialog', { name: 'Save Template' }).getByLabel('Template Name')).toBeVisible();
    } else {
      await expect(page).toHaveURL(/\/app\/templates\?type=text&save=1&.*toneOfVoice=Friendly/);
      await page.getByLabel('Template Name').fill('Friendly form');
      await page.getByRole('button', { name: 'Save Template' }).click();
      await page.getByRole('link', { name: 'Load template Friendly form' }).click();
      await expect(page.getByLabel('Tone of voice')).toHaveValue('Friendly');
    }
  });
});
