import crypto from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { clickStart, expect, signedInAccount, test, type AccountOptions } from './fixtures';
import { titleFor } from './generation-providers';

// The input tools' browser wiring: the CSV drop zone and file picker, the per-row CSV
// columns reaching the result (with and without JavaScript), the generate-titles button (both
// projects), the Templates dialog with JavaScript. The providers are the test servers of generation-providers.ts.
test.describe.configure({ timeout: 240_000 });

const tag = () => crypto.randomBytes(3).toString('hex');
const toasts = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const topicsArea = (page: Page) => page.getByLabel('Blog topics or keywords');

async function signIn(page: Page, label: string, options?: AccountOptions) {
  const account = await signedInAccount(page, label, options);
  await page.goto('/app');
  return account;
}

/** A file for a drop event, made in the page (a DataTransfer cannot cross from Node). */
async function droppedFile(page: Page, name: string, type: string, content: string) {
  return page.evaluateHandle(
    ([n, t, c]) => {
      const data = new DataTransfer();
      data.items.add(new File([c], n, { type: t }));
      return data;
    },
    [name, type, content] as const,
  );
}

async function expectToast(page: Page, title: string, description?: string, timeout = 15_000) {
  const region = toasts(page);
  await expect(region.getByText(title, { exact: true })).toBeVisible({ timeout });
  if (description) await expect(region.getByText(description, { exact: true })).toBeVisible();
}

test.describe('with JavaScript', () => {
  test.skip(({ javaScriptEnabled }) => javaScriptEnabled === false, 'the JavaScript wiring (the no-JS forms are tested apart)');

  test('CSV: the drop zone highlights and takes a dropped file; the file picker fills the text area; the CSV view lists the file; back to manual keeps the topics; per-row columns reach the result', async ({
    page,
  }) => {
    await signIn(page, 'csv-js');
    const t = tag();
    const zone = page.getByTestId('csv-drop-zone');

    await test.step('the drop zone: highlight while dragging, refuse a non-CSV, take a dropped CSV', async () => {
      await page.getByRole('link', { name: 'Import CSV' }).click();
      await expect(zone).toBeVisible();
      // The script switched the view in place: no navigation, no text area.
      await expect(page).toHaveURL(/\/app$/);
      await expect(topicsArea(page)).toHaveCount(0);
      await expect(zone).not.toHaveAttribute('data-dragging', /.*/);

      const png = await droppedFile(page, 'photo.png', 'image/png', 'not a csv');
      await zone.dispatchEvent('dragenter', { dataTransfer: png });
      await expect(zone).toHaveAttribute('data-dragging', 'true');
      await expect(zone).toContainText('Drop the file to upload it');
      await zone.dispatchEvent('drop', { dataTransfer: png });
      await expect(zone).not.toHaveAttribute('data-dragging', /.*/);
      await expectToast(page, 'Invalid File', 'Please upload a CSV file.');
      await expect(zone).toBeVisible();

      const csv = await droppedFile(page, 'dropped.csv', 'text/csv', `topic_or_keyword\nDropped one ${t}\nDropped two ${t}\n`);
      await zone.dispatchEvent('dragover', { dataTransfer: csv });
      await expect(zone).toHaveAttribute('data-dragging', 'true');
      await zone.dispatchEvent('drop', { dataTransfer: csv });
      await expectToast(page, 'CSV Uploaded', 'Loaded 2 topics.');
      // A successful upload puts the topics into the text area and returns to manual.
      await expect(topicsArea(page)).toHaveValue(`Dropped one ${t}\nDropped two ${t}`);
      await expect(page.getByTestId('topic-count')).toHaveText('2 topics');
    });

    await test.step('the file picker, with per-row columns; the CSV view shows the count and the numbered list', async () => {
      await page.getByRole('link', { name: 'Import CSV' }).click();
      // The last file is listed again, with Replace file.
      await expect(page.getByTestId('csv-loaded')).toContainText('2 topics loaded');
      await page.getByLabel('Replace file').setInputFiles({
        name: 'with-columns.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(
          `topic_or_keyword,title,keywords,instructions\r\nAlpha ${t},Alpha the great,"apples, pears",Keep it short\r\nBeta ${t},,,\r\nalpha ${t},,,\r\n`,
        ),
      });
      await expectToast(page, 'CSV Uploaded', 'Loaded 2 topics; skipped 1 duplicate.');
      await expect(topicsArea(page)).toHaveValue(`Alpha ${t}\nBeta ${t}`);
      await expect(page.getByTestId('csv-brief-note')).toHaveText(
        '1 topic carries a title, keywords or instructions from the CSV; they go into its prompt.',
      );
      // Typing follows the count of topics carrying columns.
      await topicsArea(page).fill(`Beta ${t}`);
      await expect(page.getByTestId('csv-brief-note')).toHaveCount(0);
      await topicsArea(page).fill(`ALPHA ${t}\nBeta ${t}`);
      await expect(page.getByTestId('csv-brief-note')).toBeVisible();

      await page.getByRole('link', { name: 'Import CSV' }).click();
      const loaded = page.getByTestId('csv-loaded');
      await expect(loaded).toContainText('2 topics loaded');
      await expect(loaded).toContainText('with-columns.csv');
      await expect(loaded).toContainText('Skipped 1 duplicate.');
      await expect(loaded).toContainText('Title, keywords and instructions columns are carried with each topic.');
      const list = page.getByRole('list', { name: 'Topics from the file' });
      expect(await list.evaluate((el) => el.tagName)).toBe('OL');
      await expect(list.getByRole('listitem')).toHaveText([`Alpha ${t}`, `Beta ${t}`]);

      await page.getByRole('link', { name: 'Back to manual input' }).click();
      await expect(page.getByTestId('csv-loaded')).toHaveCount(0);
      await expect(topicsArea(page)).toHaveValue(`ALPHA ${t}\nBeta ${t}`);
    });

    await test.step('Start: the result of the topic with columns shows them and has the requested title', async () => {
      await page.getByRole('button', { name: 'Start generation' }).click();
      await expect(page).toHaveURL(/\/app\?tab=results&run=/, { timeout: 30_000 });
      await expectToast(page, 'Generation Complete');
      const alpha = page.getByTestId('result').filter({ hasText: 'Alpha the great' });
      await expect(alpha).toHaveAttribute('data-status', 'completed');
      await alpha.locator('summary').first().click();
      const brief = alpha.getByTestId('result-brief');
      await expect(brief).toContainText('Requested title: Alpha the great');
      await expect(brief).toContainText('Keywords: apples, pears');
      await expect(brief).toContainText('Instructions: Keep it short');
      const beta = page.getByTestId('result').filter({ has: page.getByTestId('result-title').filter({ hasText: `Beta ${t}` }) });
      await beta.locator('summary').first().click();
      await expect(beta.getByTestId('result-content')).toBeVisible();
      await expect(beta.getByTestId('result-brief')).toHaveCount(0);
      // Collapsed, a row says what it was asked for beside the generated title.
      await expect(alpha.getByTestId('result-topic')).toContainText(`Topic: ALPHA ${t}`);
    });

    await test.step('opened at ?input=csv (where the upload without JavaScript comes back), an upload leaves that address', async () => {
      await page.goto('/app?input=csv');
      await page.getByLabel('CSV file').setInputFiles({
        name: 'again.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(`topic_or_keyword\nAgain ${t}\n\nagain ${t}\n`),
      });
      await expectToast(page, 'CSV Uploaded', 'Loaded 1 topic; skipped 1 duplicate and 1 empty row.');
      await expect(page).toHaveURL(/\/app$/);
      await expect(topicsArea(page)).toHaveValue(`Again ${t}`);
    });
  });

  test('parts loaded on first use that cannot be downloaded: the page works as without JavaScript', async ({ page }) => {
    // The scripts the workspace loads when first used (the Input tab's first load has none of them).
    await page.route(
      /\/build\/_shared\/(templates|csv-import|form-validation|results-panel|integration-tab|settings-dialog|slate-editor)-\w+\.js$/,
      (route) => route.abort(),
    );
    await signIn(page, 'lazy-down');
    const t = tag();

    await test.step('Templates and Import CSV follow their links to the pages the server renders', async () => {
      await page.getByRole('link', { name: 'Templates' }).click();
      await expect(page).toHaveURL(/\/app\/templates\?type=text$/);
      await page.goto('/app');
      await page.getByRole('link', { name: 'Import CSV' }).click();
      await expect(page).toHaveURL(/\/app\?input=csv$/);
      // The server's CSV form stays, as plain HTML, when its script cannot come.
      await expect(page.getByLabel('CSV file')).toBeVisible();
    });

    await test.step('Start posts the form (the server validates it) and the results tab shows the run', async () => {
      await page.goto('/app');
      await topicsArea(page).fill(`Lazy ${t}`);
      await page.getByRole('button', { name: 'Start generation' }).click();
      await expect(page).toHaveURL(/tab=results/);
      await expect(page.getByTestId('result')).toHaveCount(1);
    });
  });

  test('Templates dialog: open, save current, load sets the type, model and settings, delete with confirmation', async ({ page }) => {
    await signIn(page, 'templates-js', { plan: 'pro' });
    const model = page.getByLabel('AI model');
    const tone = page.getByLabel('Tone of voice');

    await test.step('open the dialog in place; empty state', async () => {
      await model.selectOption('anthropic/claude-3.7-sonnet');
      await tone.selectOption('Humorous');
      await page.getByRole('link', { name: 'Templates' }).click();
      const dialog = page.getByRole('dialog', { name: 'Templates' });
      await expect(dialog).toBeVisible();
      await expect(page).toHaveURL(/\/app$/);
      await expect(dialog.getByText('No templates found')).toBeVisible();
      await expect(dialog.getByText('Save your current settings as a template')).toBeVisible();
    });

    await test.step('Save Current: the nested dialog, its validation, the saved template listed', async () => {
      const dialog = page.getByRole('dialog', { name: 'Templates' });
      await dialog.getByRole('button', { name: 'Save Current' }).click();
      const save = page.getByRole('dialog', { name: 'Save Template' });
      await expect(save).toBeVisible();
      const name = save.getByLabel('Template Name');
      await expect(name).toHaveAttribute('placeholder', 'My Template');
      await expect(save.getByRole('button', { name: 'Save Template' })).toBeDisabled();
      await name.fill('   ');
      await expect(save.getByRole('button', { name: 'Save Template' })).toBeDisabled();
      await name.fill('Funny Claude posts');
      await save.getByRole('button', { name: 'Save Template' }).click();
      await expectToast(page, 'Template saved');
      await expect(save).toHaveCount(0);
      const list = dialog.getByRole('list', { name: 'Saved templates' });
      await expect(list.getByText('Funny Claude posts', { exact: true })).toBeVisible();
      await expect(list.getByText(/Claude 3\.7 Sonnet/)).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
    });

    await test.step('load sets the model and settings; the topics typed stay', async () => {
      await model.selectOption('openai/gpt-4o-mini-search-preview');
      await tone.selectOption('Neutral');
      await topicsArea(page).fill('kept topic');
      await page.getByRole('link', { name: 'Templates' }).click();
      const dialog = page.getByRole('dialog', { name: 'Templates' });
      await dialog.getByRole('link', { name: 'Load template Funny Claude posts' }).click();
      await expectToast(page, 'Template loaded', '“Funny Claude posts” settings are applied.');
      await expect(dialog).toHaveCount(0);
      await expect(page).toHaveURL(/\/app\?template=[0-9a-f-]{36}$/);
      await expect(page.getByTestId('active-template')).toHaveText(/Active template: Funny Claude posts/);
      await expect(model).toHaveValue('anthropic/claude-3.7-sonnet');
      await expect(tone).toHaveValue('Humorous');
      // The topics typed before loading stay.
      await expect(topicsArea(page)).toHaveValue('kept topic');
    });

    await test.step('an image template loads into the image view with its settings', async () => {
      await page.goto('/app?type=image');
      await page.getByLabel('Aspect ratio').selectOption('16:9');
      await page.getByRole('link', { name: 'Templates' }).click();
      const dialog = page.getByRole('dialog', { name: 'Templates' });
      await expect(dialog.getByText('No templates found')).toBeVisible();
      await dialog.getByRole('button', { name: 'Save Current' }).click();
      await page.getByRole('dialog', { name: 'Save Template' }).getByLabel('Template Name').fill('Wide heroes');
      await page.getByRole('dialog', { name: 'Save Template' }).getByRole('button', { name: 'Save Template' }).click();
      await expectToast(page, 'Template saved');
      await expect(dialog.getByRole('list', { name: 'Saved templates' }).getByText('16:9')).toBeVisible();
      await page.keyboard.press('Escape');
      await page.getByLabel('Aspect ratio').selectOption('1:1');
      await page.getByRole('link', { name: 'Templates' }).click();
      await page.getByRole('dialog', { name: 'Templates' }).getByRole('link', { name: 'Load template Wide heroes' }).click();
      await expect(page).toHaveURL(/\/app\?type=image&template=[0-9a-f-]{36}$/);
      await expect(page.getByLabel('Aspect ratio')).toHaveValue('16:9');
      await expect(page.getByRole('navigation', { name: 'What to generate' }).getByRole('link', { name: 'Images' })).toHaveAttribute(
        'aria-current',
        'page',
      );
    });

    await test.step('delete asks for confirmation first', async () => {
      await page.goto('/app');
      await page.getByRole('link', { name: 'Templates' }).click();
      const dialog = page.getByRole('dialog', { name: 'Templates' });
      const confirm = dialog.getByRole('group', { name: 'Delete template?' });
      await expect(confirm).toBeHidden();
      await dialog.getByLabel('Delete template Funny Claude posts').click();
      await expect(confirm).toBeVisible();
      await expect(confirm).toContainText('“Funny Claude posts” will be deleted. This cannot be undone.');
      // Nothing is deleted until confirmed.
      await expect(dialog.getByRole('list', { name: 'Saved templates' }).getByText('Funny Claude posts', { exact: true })).toBeVisible();
      await confirm.getByRole('button', { name: 'Delete template' }).click();
      await expectToast(page, 'Template deleted');
      await expect(dialog.getByText('No templates found')).toBeVisible();
      await expect(page).toHaveURL(/\/app$/);
    });
  });
});

test('generate titles: the button fills the text area with one title per keyword, in order', async ({ page, jsEnabled }) => {
  await signIn(page, 'titles');
  const t = tag();
  const area = topicsArea(page);
  const button = (name: RegExp | string): Locator => page.getByRole('button', { name, exact: true });
  if (jsEnabled) {
    // Nothing to title: disabled; one line: singular; several: plural.
    await expect(button('Generate title')).toBeDisabled();
    await area.fill(`solar ${t}`);
    await expect(button('Generate title')).toBeEnabled();
    await area.fill(`solar ${t}\n\n  heat pumps ${t}  \n`);
    await expect(button('Generate titles')).toBeEnabled();
    await button('Generate titles').click();
    await expectToast(page, 'Titles Generated', '2 titles are in the topics box.');
    await expect(area).toHaveValue(`${titleFor(`solar ${t}`)}\n${titleFor(`heat pumps ${t}`)}`);
    await expect(page.getByTestId('topic-count')).toHaveText('2 topics');

    await area.fill(`one keyword ${t}`);
    await button('Generate title').click();
    await expectToast(page, 'Title Generated', 'The title is in the topics box.');
    await expect(area).toHaveValue(titleFor(`one keyword ${t}`));
  } else {
    // Without JavaScript the button posts the form to /app/titles, which returns with the titles.
    await area.fill(`solar ${t}\nheat pumps ${t}`);
    await page.getByRole('button', { name: /^Generate titles?$/ }).click();
    await expect(page).toHaveURL(/\/app\?topics=[0-9a-f-]{36}$/);
    await expectToast(page, 'Titles Generated', '2 titles are in the topics box.');
    await expect(topicsArea(page)).toHaveValue(`${titleFor(`solar ${t}`)}\n${titleFor(`heat pumps ${t}`)}`);
  }
});

test('without JavaScript: the CSV form post fills the text area and carries the per-row columns to the result', async ({
  page,
  jsEnabled,
}) => {
  test.skip(jsEnabled, 'the upload with JavaScript is tested above');
  await signIn(page, 'csv-nojs');
  const t = tag();
  await page.getByRole('link', { name: 'Import CSV' }).click();
  await expect(page).toHaveURL(/\/app\?input=csv$/);
  await page.getByLabel('CSV file').setInputFiles({
    name: 'columns.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`topic_or_keyword;title;keywords\r\nGamma ${t};Gamma, told plainly;"rain; wind"\r\nDelta ${t};;\r\n`),
  });
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect(page).toHaveURL(/\/app\?topics=[0-9a-f-]{36}$/);
  await expectToast(page, 'CSV Uploaded', 'Loaded 2 topics.');
  await toasts(page).getByRole('link', { name: 'Close notification' }).click();
  await expect(topicsArea(page)).toHaveValue(`Gamma ${t}\nDelta ${t}`);
  await expect(page.getByTestId('csv-brief-note')).toHaveText(
    '1 topic carries a title, keywords or instructions from the CSV; they go into its prompt.',
  );

  await clickStart(page, jsEnabled);
  await expectToast(page, 'Generation Complete', undefined, 45_000);
  await expect(page).toHaveURL(/\/app\?tab=results/);
  const gamma = page.getByTestId('result').filter({ hasText: 'Gamma, told plainly' });
  await expect(gamma).toHaveAttribute('data-status', 'completed');
  await gamma.locator('summary').first().click();
  await expect(gamma.getByTestId('result-brief')).toContainText('Requested title: Gamma, told plainly');
  await expect(gamma.getByTestId('result-brief')).toContainText('Keywords: rain; wind');
});
