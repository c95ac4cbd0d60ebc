import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../db/client';
import { DEFAULT_IMAGE_MODEL, DEFAULT_TEXT_MODEL, MAX_TEMPLATES_PER_USER } from '../../app/catalogue';
import { providerKey } from '../../app/services/api-keys.server';
import { grantSignupCredits } from '../../app/services/ledger.server';
import { createTemplate } from '../../app/services/templates.server';
import { getLastUsed, saveLastUsed } from '../../app/services/user-settings.server';
import { applyTemplate, initialFormValues, lastUsedFromForm, resetModel } from '../../app/utils/input-settings';
import { appSettings } from '../../app/utils/input-settings';
import { startTestApp, TestClient, type TestApp } from '../support/app-server';
import { makeUser, signedInClient } from '../support/input-tools';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('templates API', () => {
  it('creates, lists by type, updates and deletes; defaults fill missing settings', async () => {
    const client = await signedInClient(app.url, (await makeUser('tpl-crud')).id);
    const created = await client.postJson('/api/templates', {
      name: '  Weekly posts ',
      type: 'text',
      settings: { toneOfVoice: 'Friendly' },
      language: 'German',
    });
    expect(created.status).toBe(201);
    const { template } = await created.json();
    expect(template).toMatchObject({
      name: 'Weekly posts',
      type: 'text',
      settings: {
        toneOfVoice: 'Friendly',
        language: 'German',
        model: 'openai/gpt-4o-mini',
        maxTokens: 2048,
        temperature: 0.7,
        includeQA: true,
        readingLevel: '8th & 9th grade',
      },
    });
    const image = await (
      await client.postJson('/api/templates', { name: 'Hero images', type: 'image', settings: { guidanceScale: 9.5 } })
    ).json();
    expect(image.template.settings).toEqual({
      model: DEFAULT_IMAGE_MODEL,
      aspectRatio: '1:1',
      stylePreset: 'photographic',
      guidanceScale: 9.5,
      numOutputs: 1,
    });

    expect((await (await client.get('/api/templates')).json()).templates.map((t: { name: string }) => t.name)).toEqual([
      'Hero images',
      'Weekly posts',
    ]);
    expect((await (await client.get('/api/templates?type=text')).json()).templates).toHaveLength(1);
    expect((await (await client.get('/api/templates?type=image')).json()).templates[0].name).toBe('Hero images');
    expect((await client.get('/api/templates?type=video')).status).toBe(400);

    const put = await client.request(`/api/templates/${template.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed', settings: { contentLength: 'Long' } }),
    });
    expect(put.status).toBe(200);
    expect((await put.json()).template).toMatchObject({
      name: 'Renamed',
      settings: { contentLength: 'Long', toneOfVoice: 'Friendly', language: 'German' },
    });

    const del = await client.request(`/api/templates/${template.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await client.request(`/api/templates/${template.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('validates names and settings with translated messages', async () => {
    const client = await signedInClient(app.url, (await makeUser('tpl-valid')).id);
    const blank = await client.postJson('/api/templates', { name: '   ', type: 'text' });
    expect(blank.status).toBe(400);
    expect((await blank.json()).error).toBe('Please enter a name for your template');
    expect((await client.postJson('/api/templates', { name: 'x', type: 'video' })).status).toBe(400);
    expect((await client.postJson('/api/templates', { name: 'x', type: 'image', settings: { guidanceScale: 21 } })).status).toBe(400);
    expect((await client.postJson('/api/templates', { name: 'x', type: 'image', settings: { guidanceScale: 7.3 } })).status).toBe(400);
    expect((await client.postJson('/api/templates', { name: 'x', type: 'image', settings: { numOutputs: 5 } })).status).toBe(400);
    expect((await client.postJson('/api/templates', { name: 'x', type: 'text', settings: { toneOfVoice: 'Angry' } })).status).toBe(400);
    expect(
      (await client.postJson('/api/templates', { name: 'x', type: 'text', settings: { model: 'black-forest-labs/flux-schnell' } })).status,
    ).toBe(400);
    expect((await client.postJson('/api/templates', { name: 'x'.repeat(101), type: 'text' })).status).toBe(400);
    const zh = await client.postJson('/api/templates', { name: '', type: 'text' }, { cookie: `${client.cookieHeader()}; language=zh-HK` });
    expect((await zh.json()).error).toBe('請為範本輸入名稱');
    expect(
      (await client.request('/api/templates', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' })).status,
    ).toBe(400);
  });

  it("answers 404 for another user's template, and 401 signed out", async () => {
    const owner = await makeUser('tpl-owner');
    const created = await createTemplate(owner.id, {
      name: 'Mine',
      type: 'text',
      settings: applyTemplate({ type: 'text', settings: {} }) as never,
    });
    if (!created.ok) throw new Error('not created');
    const other = await signedInClient(app.url, (await makeUser('tpl-other')).id);
    const id = created.template.id;
    expect((await other.get(`/api/templates/${id}`)).status).toBe(404);
    expect(
      (
        await other.request(`/api/templates/${id}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"Stolen"}',
        })
      ).status,
    ).toBe(404);
    expect((await other.request(`/api/templates/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await other.get('/api/templates/not-a-uuid')).status).toBe(404);
    expect((await (await other.get('/api/templates')).json()).templates).toEqual([]);
    const [row] = await sql`SELECT name FROM templates WHERE id = ${id}`;
    expect(row!.name).toBe('Mine');
    expect((await new TestClient(app.url).get('/api/templates')).status).toBe(401);
  });

  it(`keeps at most ${MAX_TEMPLATES_PER_USER} templates per user, even under concurrent saves`, async () => {
    const user = await makeUser('tpl-cap');
    await sql`INSERT INTO templates (user_id, name, type) SELECT ${user.id}, 'T' || g, 'text' FROM generate_series(1, ${MAX_TEMPLATES_PER_USER - 2}) g`;
    const client = await signedInClient(app.url, user.id);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => client.postJson('/api/templates', { name: `Race ${i}`, type: 'text' })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = answers.find((r) => r.status === 409)!;
    expect((await refused.json()).error).toBe('You can keep at most 100 templates. Delete one to save another.');
    const [{ count }] = (await sql`SELECT count(*)::int AS count FROM templates WHERE user_id = ${user.id}`) as unknown as [
      { count: number },
    ];
    expect(count).toBe(MAX_TEMPLATES_PER_USER);
  });

  it('loading a template sets type, model and settings, with defaults and the model-reset rule', () => {
    expect(applyTemplate({ type: 'text', settings: { toneOfVoice: 'Humorous' } })).toMatchObject({
      generationType: 'text',
      model: DEFAULT_TEXT_MODEL,
      toneOfVoice: 'Humorous',
      language: 'English (US)',
      maxTokens: 1000,
    });
    expect(applyTemplate({ type: 'text', settings: { model: 'anthropic/claude-3.7-sonnet', toneOfVoice: 'nonsense' } })).toMatchObject({
      model: 'anthropic/claude-3.7-sonnet',
      toneOfVoice: 'Neutral',
    });
    expect(applyTemplate({ type: 'image', settings: { model: 'removed-model' } }, { defaultImageModel: 'dall-e-3' })).toMatchObject({
      generationType: 'image',
      model: 'dall-e-3',
      aspectRatio: '1:1',
    });
    expect(resetModel('text')).toBe(DEFAULT_TEXT_MODEL);
    expect(resetModel('image', { defaultImageModel: 'midjourney' })).toBe('midjourney');
    expect(resetModel('image', null)).toBe(DEFAULT_IMAGE_MODEL);
  });
});

describe('settings and API keys', () => {
  it('GET /api/settings gives defaults and masked keys; POST saves, skips blanks and masks, removes with null', async () => {
    const user = await makeUser('settings');
    const client = await signedInClient(app.url, user.id);
    expect((await (await client.get('/api/settings')).json()).settings).toEqual({
      ...appSettings.stored.parse({}),
      openRouterApiKey: null,
      replicateApiKey: null,
      timeZone: null,
    });

    const saved = await client.postJson('/api/settings', {
      darkMode: true,
      guidanceScale: 12.5,
      numOutputs: 3,
      defaultImageModel: 'dall-e-3',
      openRouterApiKey: 'sk-or-v1-supersecret-9876',
      replicateApiKey: '   ',
    });
    expect(saved.status).toBe(200);
    expect(saved.headers.get('set-cookie')).toContain('theme=dark');
    const text = await saved.text();
    expect(text).not.toContain('supersecret');
    expect(JSON.parse(text).settings).toMatchObject({
      darkMode: true,
      guidanceScale: 12.5,
      numOutputs: 3,
      defaultImageModel: 'dall-e-3',
      openRouterApiKey: '••••9876',
      replicateApiKey: null,
      autoSave: true,
    });
    expect(await providerKey(user.id, 'openrouter')).toBe('sk-or-v1-supersecret-9876');

    // The masked value sent back unchanged and a blank key change nothing.
    await client.postJson('/api/settings', { openRouterApiKey: '••••9876', darkMode: false });
    expect(await providerKey(user.id, 'openrouter')).toBe('sk-or-v1-supersecret-9876');
    const read = await (await client.get('/api/settings')).text();
    expect(read).not.toContain('supersecret');
    expect(JSON.parse(read).settings).toMatchObject({ darkMode: false, guidanceScale: 12.5, openRouterApiKey: '••••9876' });

    expect((await client.postJson('/api/settings', { guidanceScale: 0.5 })).status).toBe(400);
    expect((await client.postJson('/api/settings', { numOutputs: 4.5 })).status).toBe(400);
    expect((await client.postJson('/api/settings', { defaultTextModel: 'nope' })).status).toBe(400);
  });

  it('POST /api/api-keys saves, masks, ignores blanks and removes a key', async () => {
    const user = await makeUser('keys');
    const client = await signedInClient(app.url, user.id);
    const res = await client.postJson('/api/api-keys', { openRouterApiKey: 'or-key-aaaa1111', replicateApiKey: 'r8_secret_2222' });
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).not.toContain('secret');
    expect(JSON.parse(body).keys).toEqual({ openRouterApiKey: '••••1111', replicateApiKey: '••••2222' });
    await client.postJson('/api/api-keys', { openRouterApiKey: '', replicateApiKey: null });
    expect((await (await client.postJson('/api/api-keys', {})).json()).keys).toEqual({
      openRouterApiKey: '••••1111',
      replicateApiKey: null,
    });
    expect(await providerKey(user.id, 'replicate')).toBeNull();
    expect((await new TestClient(app.url).postJson('/api/api-keys', { openRouterApiKey: 'x' })).status).toBe(401);
  });

  it('the settings form without JavaScript saves and sets the theme cookie; the next page renders class="dark"', async () => {
    const user = await makeUser('settings-form');
    const client = await signedInClient(app.url, user.id);
    const res = await client.postForm('/settings', {
      darkMode: 'on',
      autoSave: 'on',
      defaultTextModel: DEFAULT_TEXT_MODEL,
      defaultImageModel: DEFAULT_IMAGE_MODEL,
      aspectRatio: '4:3',
      stylePreset: 'anime',
      guidanceScale: '3.5',
      numOutputs: '2',
      openRouterApiKey: '',
      replicateApiKey: 'r8-form-key-3333',
      redirectTo: '/subscription',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/subscription');
    expect(client.cookies.get('theme')).toBe('dark');
    expect((await (await client.get('/api/settings')).json()).settings).toMatchObject({
      darkMode: true,
      aspectRatio: '4:3',
      stylePreset: 'anime',
      guidanceScale: 3.5,
      numOutputs: 2,
      replicateApiKey: '••••3333',
    });
    const html = await (await client.get('/subscription')).text();
    expect(html).toMatch(/<html[^>]*class="[^"]*\bdark\b/);
    // A new browser (no theme cookie) gets the dark class from the saved setting, and the cookie.
    const fresh = await signedInClient(app.url, user.id);
    const page = await fresh.get('/app');
    expect(await page.text()).toMatch(/<html[^>]*class="[^"]*\bdark\b/);
    expect(fresh.cookies.get('theme')).toBe('dark');
    const light = await new TestClient(app.url).get('/');
    expect(await light.text()).not.toMatch(/<html[^>]*class="[^"]*\bdark\b/);
  });
});

describe("the user's time zone", () => {
  const zoneOf = async (id: string) =>
    (await sql<{ timeZone: string | null }[]>`SELECT time_zone AS "timeZone" FROM users WHERE id = ${id}`)[0]!.timeZone;
  // The credit history's first row: its date and time as the page shows them.
  const firstRow = (html: string) =>
    /data-testid="credit-history"[\s\S]*?<time[^>]*>([\s\S]*?)<\/time>/.exec(html)![1]!.replace(/<[^>]+>/g, ' ');

  it("takes the browser's zone once, then the settings (form and JSON) decide; every page uses it, without JavaScript too", async () => {
    const user = await makeUser('zone');
    await grantSignupCredits(user.id);
    const client = await signedInClient(app.url, user.id);
    expect((await (await client.get('/api/user')).json()).timeZone).toBeNull();

    // No zone yet and no browser's zone (no script ran): UTC, named.
    expect(firstRow(await (await client.get('/subscription')).text())).toMatch(/\d{1,2}:\d{2}\s?[AP]M UTC/);
    expect(await zoneOf(user.id)).toBeNull();

    // The page's script told the browser's zone: the account keeps it, and a later browser's does not replace it.
    client.cookies.set('tz', encodeURIComponent('Asia/Hong_Kong'));
    expect(firstRow(await (await client.get('/subscription')).text())).toMatch(/GMT\+8/);
    expect(await zoneOf(user.id)).toBe('Asia/Hong_Kong');
    client.cookies.set('tz', 'Europe/London');
    expect(firstRow(await (await client.get('/subscription')).text())).toMatch(/GMT\+8/);
    // Without any cookie (a browser without JavaScript) the setting holds.
    client.cookies.delete('tz');
    expect(firstRow(await (await client.get('/subscription')).text())).toMatch(/GMT\+8/);
    expect((await (await client.get('/api/user')).json()).timeZone).toBe('Asia/Hong_Kong');

    // The settings dialog (a page without JavaScript) lists the zones with the user's chosen, in en and zh-HK.
    const dialog = await (await client.get('/subscription?settings=1')).text();
    expect(dialog).toMatch(/<select[^>]*name="timeZone"/);
    expect(dialog).toMatch(/<option value="Asia\/Hong_Kong" selected="">Asia\/Hong Kong \(GMT\+08:00\)<\/option>/);
    expect(dialog).toContain('Dates and times are shown in this zone, and the dates and times you pick are read in it.');
    expect(
      await (
        await client.get('/subscription?settings=1', { 'accept-language': 'zh-HK', cookie: `${client.cookieHeader()}; language=zh-HK` })
      ).text(),
    ).toContain('日期和時間會以此時區顯示，你選擇的日期和時間亦以此時區計算。');

    // The form post: a listed zone is saved; an unknown one is refused and changes nothing.
    const saved = await client.postForm('/settings', { timeZone: 'America/New_York', autoSave: 'on', redirectTo: '/subscription' });
    expect(saved.status).toBe(302);
    expect(saved.headers.get('location')).toBe('/subscription');
    expect(await zoneOf(user.id)).toBe('America/New_York');
    expect(firstRow(await (await client.get('/subscription')).text())).toMatch(/E[SD]T/);
    const refused = await client.postForm('/settings', { timeZone: 'Mars/Olympus_Mons', redirectTo: '/subscription' });
    expect(refused.headers.get('location')).toBe('/subscription?settings=1');
    expect(await zoneOf(user.id)).toBe('America/New_York');

    // The JSON settings: read back, saved in this runtime's spelling, fixed offsets and unknown names refused.
    expect((await (await client.get('/api/settings')).json()).settings.timeZone).toBe('America/New_York');
    const kolkata = await client.postJson('/api/settings', { timeZone: 'Asia/Kolkata' });
    expect(kolkata.status).toBe(200);
    expect(['Asia/Kolkata', 'Asia/Calcutta']).toContain((await kolkata.json()).settings.timeZone);
    expect((await client.postJson('/api/settings', { timeZone: 'Etc/GMT+5' })).status).toBe(400);
    expect((await client.postJson('/api/settings', { timeZone: 'Nowhere' })).status).toBe(400);
    expect((await client.postJson('/api/settings', { timeZone: 'UTC' })).status).toBe(200);
    expect(await zoneOf(user.id)).toBe('UTC');
  });
});

describe('last-used values', () => {
  it('PATCH /api/user/settings saves the valid values; the next visit reads them back', async () => {
    const user = await makeUser('last-used');
    const client = await signedInClient(app.url, user.id);
    const res = await client.request('/api/user/settings', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        lastTextLanguage: 'French',
        lastTextIncludeQA: false,
        lastImageGuidanceScale: 99,
        lastImageNumOutputs: 2,
        defaultImageModel: 'midjourney',
        replicateApiKey: 'r8-last-used-4444',
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('r8-last-used');
    const last = await getLastUsed(user.id);
    expect(last).toMatchObject({
      lastTextLanguage: 'French',
      lastTextIncludeQA: false,
      lastImageGuidanceScale: 7,
      lastImageNumOutputs: 2,
      defaultImageModel: 'midjourney',
      lastTextToneOfVoice: 'Neutral',
    });
    expect(await providerKey(user.id, 'replicate')).toBe('r8-last-used-4444');
    const [row] = await sql`SELECT last_used::text AS raw FROM user_settings WHERE user_id = ${user.id}`;
    expect(String(row!.raw)).not.toContain('r8-last-used');
    expect((await (await client.get('/api/user/settings')).json()).settings.lastTextLanguage).toBe('French');
  });

  it('saveLastUsed joins the caller transaction (rolled back with it) and maps the generation form', async () => {
    const user = await makeUser('last-used-tx');
    await sql
      .begin(async (tx) => {
        await saveLastUsed(
          user.id,
          lastUsedFromForm({ generationType: 'text', language: 'Spanish', toneOfVoice: 'Friendly' }) as Record<string, unknown>,
          tx as never,
        );
        throw new Error('rollback');
      })
      .catch(() => {});
    expect((await getLastUsed(user.id)).lastTextLanguage).toBe('English (US)');
    await saveLastUsed(
      user.id,
      lastUsedFromForm({ generationType: 'image', model: 'dall-e-3', aspectRatio: '9:16', guidanceScale: '4.5' }) as Record<
        string,
        unknown
      >,
    );
    const initial = initialFormValues(await getLastUsed(user.id), appSettings.stored.parse({}));
    expect(initial.image).toMatchObject({ model: 'dall-e-3', aspectRatio: '9:16', guidanceScale: 4.5 });
    expect(initial.text.model).toBe(DEFAULT_TEXT_MODEL);
  });
});

describe('the Input tab with the input tools', () => {
  it('renders the last-used values, an active template (with its type) and topics from a no-JS upload', async () => {
    const user = await makeUser('workspace-tools');
    const client = await signedInClient(app.url, user.id);
    await saveLastUsed(user.id, { lastTextToneOfVoice: 'Humorous', lastTextLanguage: 'German' });
    let html = await (await client.get('/app')).text();
    expect(html).toMatch(/<option value="Humorous" selected=""/);
    expect(html).toMatch(/<option value="German" selected=""/);
    expect(html).toContain('Import CSV');
    expect(html).toContain('Generate title');

    const created = await createTemplate(user.id, {
      name: 'Pixel art set',
      type: 'image',
      settings: { model: 'black-forest-labs/flux-schnell', aspectRatio: '9:16', stylePreset: 'pixel-art', guidanceScale: 7, numOutputs: 2 },
    });
    if (!created.ok) throw new Error('not created');
    html = await (await client.get(`/app?template=${created.template.id}`)).text();
    expect(html).toContain('Active template: Pixel art set');
    expect(html).toMatch(/<option value="9:16" selected=""/);
    expect(html).toMatch(/<option value="pixel-art" selected=""/);
    // Another user's template id is ignored.
    const other = await signedInClient(app.url, (await makeUser('workspace-other')).id);
    expect(await (await other.get(`/app?template=${created.template.id}`)).text()).not.toContain('Pixel art set');

    const form = new FormData();
    form.set('file', new Blob(['topic_or_keyword\nFirst topic\nSecond topic\n'], { type: 'text/csv' }), 'topics.csv');
    const upload = await client.request('/app/csv', { method: 'POST', body: form });
    expect(upload.status).toBe(302);
    html = await (await client.get(upload.headers.get('location')!)).text();
    expect(html).toMatch(/<textarea[^>]*name="prompts"[^>]*>\s*First topic\nSecond topic<\/textarea>/);
  });
});
