import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import type { TestApp } from '../support/app-server';
import { available, createGenUser, signedInGenUser } from '../support/generation';

// The workspace's HTML forms (what a browser without JavaScript posts): Start on /app, the run's
// progress page and its Cancel, and the Results tab's mutations on /app/results. No generation
// worker runs here, so items stay `processing` until a test moves them.

let app: TestApp;

beforeAll(async () => {
  // Private hosts: the bulk-publish page is shown for a site at a closed local port (no WordPress needed).
  Object.assign(process.env, { OPENROUTER_API_KEY: 'sk-operator', REPLICATE_API_TOKEN: 'r8-operator', ALLOW_PRIVATE_HOSTS: 'true' });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
});
afterAll(() => app?.close());

function signedIn(opts: Parameters<typeof createGenUser>[1] = {}) {
  return signedInGenUser(getSql(), app.url, opts);
}

const TEXT = 'openai/gpt-4o-mini-search-preview';
const CLAUDE = 'anthropic/claude-3.7-sonnet';
const form = (fields: Record<string, string>) => ({ intent: 'generate', type: 'text', model: TEXT, ...fields });
const html = async (res: Response) => (await res.text()).replace(/<!--.*?-->/g, '').replace(/<script\b[\s\S]*?<\/script>/g, '');
const runsOf = async (userId: string) =>
  getSql()<{ id: string; settings: Record<string, unknown> }[]>`SELECT id, settings FROM generation_runs WHERE user_id = ${userId}`;

describe('Start (POST /app)', () => {
  it('without JavaScript: Start answers with the exact cost and a Confirm button (nothing spent), Confirm lands on the progress page; with it on the Results tab; the form settings reach the run', async () => {
    const u = await signedIn({ status: 'free' });
    const fields = form({ prompts: 'one\n\n two ', toneOfVoice: 'Humorous', includeIntro: 'on' });
    const ask = await u.c.postForm('/app', fields);
    expect(ask.status).toBe(200);
    const asked = await html(ask);
    expect(asked).toContain('This will generate 2 blog posts using 2 credit(s). You have 5 credits.');
    expect(asked).toContain('Confirm and start');
    expect(asked).toContain('name="confirmed" value="2:2"');
    expect(await runsOf(u.id)).toHaveLength(0);
    expect(await available(getSql(), u.id)).toBe(5);
    // A form changed after the figures were shown is counted again, not started.
    const changed = await u.c.postForm('/app', { ...fields, prompts: 'one\ntwo\nthree', confirmed: '2:2' });
    expect(changed.status).toBe(200);
    expect(await html(changed)).toContain('This will generate 3 blog posts using 3 credit(s).');
    expect(await runsOf(u.id)).toHaveLength(0);

    const res = await u.c.postForm('/app', { ...fields, confirmed: '2:2' });
    expect(res.status).toBe(302);
    const [run] = await runsOf(u.id);
    expect(res.headers.get('location')).toBe(`/app/runs/${run!.id}?watch=1`);
    // An unticked checkbox sends nothing: false, not the default.
    expect(run!.settings).toMatchObject({ toneOfVoice: 'Humorous', includeIntro: true, includeOutro: false, maxTokens: 1700 });
    const [{ n }] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE run_id = ${run!.id}`;
    expect(n).toBe(2);

    // With the page's script the cost was shown as the topics were typed: no confirm step.
    const js = await u.c.postForm('/app', form({ prompts: 'three', js: '1' }));
    expect(js.status).toBe(302);
    expect(js.headers.get('location')).toMatch(/^\/app\?tab=results&run=[0-9a-f-]{36}$/);

    u.c.cookies.set('language', 'zh-HK');
    const zh = await html(await u.c.postForm('/app', form({ prompts: 'four' })));
    expect(zh).toContain('將會生成 1 篇網誌文章，使用 1 點。 你尚有 2 點。');
    expect(zh).toContain('確認並開始生成');
  });

  it('refuses empty topics with the agreed message in the reader language, keeping what was typed', async () => {
    const u = await signedIn();
    const res = await u.c.postForm('/app', form({ prompts: '', toneOfVoice: 'Friendly' }));
    expect(res.status).toBe(400);
    const page = await html(res);
    expect(page).toContain('Please enter at least one blog topic or keyword.');
    expect(page).toMatch(/<option value="Friendly" selected="">/);
    u.c.cookies.set('language', 'zh-HK');
    expect(await html(await u.c.postForm('/app', form({ prompts: ' \n ' })))).toContain('找不到有效的網誌主題或關鍵字');
    expect(await runsOf(u.id)).toHaveLength(0);
  });

  it("a Free user's Pro-only model: 'Pro Feature' with the server's 'Free users can only use' message, nothing started", async () => {
    const u = await signedIn({ status: 'free' });
    const res = await u.c.postForm('/app', form({ prompts: 'a topic', model: CLAUDE }));
    expect(res.status).toBe(403);
    const page = await html(res);
    expect(page).toContain('Pro Feature');
    expect(page).toContain('Free users can only use');
    expect(page).toContain('a topic</textarea>');
    expect(await runsOf(u.id)).toHaveLength(0);
  });

  it('short of credits: the figures, as the script says them before Start, with and without JavaScript; nothing reserved', async () => {
    const u = await signedIn({ status: 'free' });
    const six = Array.from({ length: 6 }, (_, i) => `topic ${i}`).join('\n');
    const message = 'Not enough credits: this run needs 6 credits and you have 5 credits. Remove topics, or get more credits.';
    const res = await u.c.postForm('/app', form({ prompts: six }));
    expect(res.status).toBe(402);
    expect(await html(res)).toContain(message);
    const scripted = await u.c.postForm('/app', form({ prompts: six, js: '1' }));
    expect(scripted.status).toBe(402);
    expect(await html(scripted)).toContain(message);
    u.c.cookies.set('language', 'zh-HK');
    expect(await html(await u.c.postForm('/app', form({ prompts: six })))).toContain(
      '點數不足：這個批次需要 6 點，你只有 5 點。請減少主題，或取得更多點數。',
    );
    expect(await runsOf(u.id)).toHaveLength(0);
  });

  it('saves an entered image-provider key before the run starts, and shows only its end', async () => {
    const u = await signedIn({ status: 'pro', credits: 5 });
    const res = await u.c.postStart('/app?type=image', {
      intent: 'generate',
      type: 'image',
      model: 'black-forest-labs/flux-schnell',
      prompts: 'a cat',
      replicateApiKey: 'r8_secret_key_9876',
    });
    expect(res.status).toBe(302);
    const [key] = await getSql()<{ last4: string }[]>`SELECT last4 FROM user_api_keys WHERE user_id = ${u.id} AND provider = 'replicate'`;
    expect(key?.last4).toBe('9876');
    const page = await html(await u.c.get('/app?type=image'));
    expect(page).toContain('9876');
    expect(page).not.toContain('r8_secret_key');
  });
});

describe('progress page and results forms', () => {
  it('progress: refreshes itself while running, cancel stops it, another user gets 404, a watched ended run forwards to the results with a toast', async () => {
    const u = await signedIn({ credits: 5 });
    const other = await signedIn();
    await u.c.postStart('/app', form({ prompts: 'x\ny' }));
    const [run] = await runsOf(u.id);
    const page = await html(await u.c.get(`/app/runs/${run!.id}`));
    expect(page).toContain('role="progressbar"');
    expect(page).toMatch(/<noscript><meta http-equiv="refresh" content="2;url=\/app\/runs\/[0-9a-f-]{36}\?watch=1"\/?><\/noscript>/);
    expect((await other.c.get(`/app/runs/${run!.id}`)).status).toBe(404);
    expect((await other.c.postForm(`/app/runs/${run!.id}`, {})).status).toBe(404);

    // Cancel where the run's items are shown: the Results tab has the run page's form, and comes back to itself.
    const tab = await html(await u.c.get('/app?tab=results&type=text'));
    expect(tab).toMatch(
      new RegExp(
        `<form method="post" action="/app/runs/${run!.id}"[^>]*>.*?name="returnTo" value="/app\\?tab=results&amp;type=text".*?Cancel generation</button></form>`,
        's',
      ),
    );
    const cancel = await u.c.postForm(`/app/runs/${run!.id}`, { intent: 'cancel', returnTo: '/app?tab=results&type=text' });
    expect(cancel.status).toBe(302);
    expect(cancel.headers.get('location')).toBe('/app?tab=results&type=text');
    expect(u.c.cookies.has('toast')).toBe(true);
    const after = await html(await u.c.get(`/app/runs/${run!.id}`));
    expect(after).toContain('Generation canceled');
    expect(after).not.toContain('http-equiv="refresh"');
    const watched = await u.c.get(`/app/runs/${run!.id}?watch=1`);
    expect(watched.status).toBe(302);
    expect(watched.headers.get('location')).toBe(`/app?tab=results&run=${run!.id}`);
  });

  it('remove, retry and save act on the owner only and answer with a redirect back and a toast; saved HTML is sanitized', async () => {
    const u = await signedIn({ credits: 5 });
    const other = await signedIn();
    await u.c.postStart('/app', form({ prompts: 'keep\nredo\nedit' }));
    const rows = await getSql()<{ id: string; prompt: string }[]>`SELECT id, prompt FROM generation_results WHERE user_id = ${u.id}`;
    const id = (p: string) => rows.find((r) => r.prompt === p)!.id;
    await getSql()`UPDATE generation_results SET status = 'failed', error = 'boom', lease_until = NULL WHERE id = ${id('redo')}`;
    await getSql()`UPDATE generation_results SET status = 'completed', title = 'T', content = '<p>old</p>' WHERE id = ${id('edit')}`;
    const back = '/app?tab=results&page=1';

    const foreign = await other.c.postForm('/app/results', { intent: 'remove', id: id('keep'), returnTo: back });
    expect(foreign.status).toBe(302);
    expect(foreign.headers.get('location')).toBe(back);
    expect(await html(await other.c.get('/app?tab=results'))).toContain('Delete Failed');
    const [{ n: kept }] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE id = ${id('keep')}`;
    expect(kept).toBe(1);

    const retry = await u.c.postForm('/app/results', { intent: 'retry', id: id('redo'), returnTo: back });
    expect(retry.headers.get('location')).toBe(back);
    expect(await html(await u.c.get(back))).toContain('Retry Initiated');
    const [redo] = await getSql()<{ status: string }[]>`SELECT status FROM generation_results WHERE id = ${id('redo')}`;
    expect(redo!.status).toBe('processing');

    await u.c.postForm('/app/results', {
      intent: 'save',
      id: id('edit'),
      content: '<p onclick="x()">new<script>alert(1)</script></p>',
      returnTo: back,
    });
    expect(await html(await u.c.get(back))).toContain('Content saved');
    const [edited] = await getSql()<{ content: string }[]>`SELECT content FROM generation_results WHERE id = ${id('edit')}`;
    expect(edited!.content).toContain('new');
    expect(edited!.content).not.toMatch(/script|onclick/);

    // A returnTo off the workspace is ignored.
    const evil = await u.c.postForm('/app/results', { intent: 'remove', id: id('keep'), returnTo: '//evil.example/x' });
    expect(evil.headers.get('location')).toBe('/app?tab=results');
    // The collapsed row, and the bulk-publish page, say what the post was asked for beside its title.
    await getSql()`UPDATE generation_results SET seo_keyword = 'egg-free' WHERE id = ${id('edit')}`;
    expect(await html(await u.c.get(back))).toMatch(
      /data-testid="result-title">T<\/span><span[^>]*data-testid="result-topic">Topic: edit · Keyword: egg-free</,
    );
    const { createSite } = await import('../../app/services/wordpress/sites.server');
    await createSite(u.id, { siteUrl: 'http://127.0.0.1:9', username: 'u', appPassword: 'p', isDefault: true });
    expect(await html(await u.c.get(`/app/publish-bulk?ids=${id('edit')}`))).toMatch(
      /<li class="break-words">T<span[^>]*data-testid="result-topic">Topic: edit · Keyword: egg-free</,
    );
    // Clear all comes back to the Text/Images filter it was pressed under.
    const cleared = await u.c.postForm('/app/results', { intent: 'clear', returnTo: '/app?tab=results&type=text' });
    expect(cleared.headers.get('location')).toBe('/app?tab=results&type=text');
    expect(await html(await u.c.get('/app?tab=results&type=text'))).toContain('Results Cleared');
    const [{ n: left }] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE user_id = ${u.id}`;
    expect(left).toBe(0);
  });
});

describe('input tools without JavaScript', () => {
  it("Save Current carries the form's values (not the last-used ones) to the Save Template form, and saves them", async () => {
    const u = await signedIn();
    // The generation form posted by its Save Current button (the submitter's saveTemplate=1).
    const carried = await u.c.postForm('/app/templates', {
      ...form({ prompts: 'a topic', toneOfVoice: 'Friendly', includeIntro: 'on', replicateApiKey: 'r8_not_carried' }),
      saveTemplate: '1',
    });
    expect(carried.status).toBe(303);
    const to = carried.headers.get('location')!;
    expect(to).toMatch(/^\/app\/templates\?type=text&save=1&/);
    expect(to).toContain('toneOfVoice=Friendly');
    expect(to).toContain('includeIntro=true');
    expect(to).toContain('includeOutro=false');
    expect(to).not.toMatch(/prompts|r8_|replicate/);
    const page = await html(await u.c.get(to));
    expect(page).toContain('<input type="hidden" name="toneOfVoice" value="Friendly"/>');
    const fields = Object.fromEntries(
      [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]),
    );
    const saved = await u.c.postForm('/app/templates', { ...fields, name: 'Friendly one' });
    expect(saved.status).toBe(302);
    const [template] = await getSql()<{ settings: Record<string, unknown> }[]>`SELECT settings FROM templates WHERE user_id = ${u.id}`;
    expect(template!.settings).toMatchObject({ toneOfVoice: 'Friendly', includeIntro: true, includeOutro: false });
  });

  it('the CSV upload says what it loaded and what it skipped, in both languages', async () => {
    const u = await signedIn();
    const upload = async () => {
      const body = new FormData();
      body.set('file', new Blob(['topic_or_keyword\nAlpha\nBravo\nalpha\n\nCharlie\n'], { type: 'text/csv' }), 'topics.csv');
      const res = await u.c.request('/app/csv', { method: 'POST', body });
      expect(res.status).toBe(302);
      return html(await u.c.get(res.headers.get('location')!));
    };
    expect(await upload()).toContain('Loaded 3 topics; skipped 1 duplicate and 1 empty row.');
    u.c.cookies.set('language', 'zh-HK');
    expect(await upload()).toContain('已載入 3 個主題；略去 1 個重複主題及 1 個空白行。');
  });
});
