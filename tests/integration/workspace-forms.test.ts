import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { TestClient, type TestApp } from '../support/app-server';
import { createGenUser } from '../support/generation';

// The workspace's HTML forms (what a browser without JavaScript posts): Start on /app, the run's
// progress page and its Cancel, and the Results tab's mutations on /app/results. No generation
// worker runs here, so items stay `processing` until a test moves them.

let app: TestApp;

beforeAll(async () => {
  Object.assign(process.env, { OPENROUTER_API_KEY: 'sk-operator', REPLICATE_API_TOKEN: 'r8-operator' });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
});
afterAll(() => app?.close());

async function signedIn(opts: Parameters<typeof createGenUser>[1] = {}) {
  const u = await createGenUser(getSql(), opts);
  const { createSession } = await import('../../app/services/sessions.server');
  const { setCookie } = await createSession(u.id);
  const c = new TestClient(app.url);
  const [pair] = setCookie.split(';');
  c.cookies.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
  return { ...u, c };
}

const TEXT = 'openai/gpt-4o-mini-search-preview';
const CLAUDE = 'anthropic/claude-3.7-sonnet';
const form = (fields: Record<string, string>) => ({ intent: 'generate', type: 'text', model: TEXT, ...fields });
const html = async (res: Response) => (await res.text()).replace(/<!--.*?-->/g, '').replace(/<script\b[\s\S]*?<\/script>/g, '');
const runsOf = async (userId: string) =>
  getSql()<{ id: string; settings: Record<string, unknown> }[]>`SELECT id, settings FROM generation_runs WHERE user_id = ${userId}`;

describe('Start (POST /app)', () => {
  it('without JavaScript lands on the progress page; with it on the Results tab; the form settings reach the run', async () => {
    const u = await signedIn({ status: 'free' });
    const res = await u.c.postForm('/app', form({ prompts: 'one\n\n two ', toneOfVoice: 'Humorous', includeIntro: 'on' }));
    expect(res.status).toBe(302);
    const [run] = await runsOf(u.id);
    expect(res.headers.get('location')).toBe(`/app/runs/${run!.id}?watch=1`);
    // An unticked checkbox sends nothing: false, not the default.
    expect(run!.settings).toMatchObject({ toneOfVoice: 'Humorous', includeIntro: true, includeOutro: false, maxTokens: 1700 });
    const [{ n }] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE run_id = ${run!.id}`;
    expect(n).toBe(2);

    const js = await u.c.postForm('/app', form({ prompts: 'three', js: '1' }));
    expect(js.status).toBe(302);
    expect(js.headers.get('location')).toMatch(/^\/app\?tab=results&run=[0-9a-f-]{36}$/);
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

  it('short of credits: the insufficient-credits message, nothing reserved', async () => {
    const u = await signedIn({ status: 'free' });
    const res = await u.c.postForm('/app', form({ prompts: Array.from({ length: 6 }, (_, i) => `topic ${i}`).join('\n') }));
    expect(res.status).toBe(402);
    expect(await html(res)).toContain('Insufficient credits. Please upgrade your plan.');
    expect(await runsOf(u.id)).toHaveLength(0);
  });

  it('saves an entered image-provider key before the run starts, and shows only its end', async () => {
    const u = await signedIn({ status: 'pro', credits: 5 });
    const res = await u.c.postForm('/app?type=image', {
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
    await u.c.postForm('/app', form({ prompts: 'x\ny' }));
    const [run] = await runsOf(u.id);
    const page = await html(await u.c.get(`/app/runs/${run!.id}`));
    expect(page).toContain('role="progressbar"');
    expect(page).toMatch(/<noscript><meta http-equiv="refresh" content="2;url=\/app\/runs\/[0-9a-f-]{36}\?watch=1"\/?><\/noscript>/);
    expect((await other.c.get(`/app/runs/${run!.id}`)).status).toBe(404);
    expect((await other.c.postForm(`/app/runs/${run!.id}`, {})).status).toBe(404);

    const cancel = await u.c.postForm(`/app/runs/${run!.id}`, {});
    expect(cancel.status).toBe(302);
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
    await u.c.postForm('/app', form({ prompts: 'keep\nredo\nedit' }));
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
    const cleared = await u.c.postForm('/app/results', { intent: 'clear' });
    expect(cleared.headers.get('location')).toBe('/app?tab=results');
    expect(await html(await u.c.get('/app?tab=results'))).toContain('Results Cleared');
    const [{ n: left }] = await getSql()<{ n: number }[]>`SELECT count(*)::int AS n FROM generation_results WHERE user_id = ${u.id}`;
    expect(left).toBe(0);
  });
});
