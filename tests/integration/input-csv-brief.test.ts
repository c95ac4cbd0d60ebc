import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startReplicateServer, type ReplicateServer } from '../support/replicate-server';
import { TestClient, type TestApp } from '../support/app-server';
import { signedInGenUser, waitForRun } from '../support/generation';
import { uploadFile } from '../support/input-tools';

// A CSV's optional per-row columns (title, keywords, instructions; beyond the topic) from the upload
// to the provider's prompt and the result, through the real app (run `npx remix build` first), the
// generation loop and the provider test servers: with the page's script (the JSON upload, its
// draft id posted with the form), without it (the form post to /app/csv), and over the JSON API.

let openai: OpenAiServer;
let replicate: ReplicateServer;
let app: TestApp;
let stopLoop: () => Promise<void>;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 5 });
  replicate = await startReplicateServer({ latencyMs: 5 });
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    REPLICATE_BASE_URL: replicate.url,
    OPENROUTER_API_KEY: 'sk-operator',
    REPLICATE_API_TOKEN: 'r8-operator',
    GENERATION_PROVIDER_ATTEMPTS: '2',
  });
  const { startTestApp } = await import('../support/app-server');
  app = await startTestApp();
  const loop = await (await import('../../jobs/generation-loop')).startGenerationLoop();
  stopLoop = loop.stop;
});

afterAll(async () => {
  await stopLoop?.();
  await app?.close();
  await openai?.close();
  await replicate?.close();
});

function signedIn() {
  return signedInGenUser(getSql(), app.url, { credits: 20 });
}

const TEXT = 'openai/gpt-4o-mini-search-preview';
const IMAGE = 'black-forest-labs/flux-schnell';
const html = async (res: Response) => (await res.text()).replace(/<!--.*?-->/g, '').replace(/<script\b[\s\S]*?<\/script>/g, '');
const userMessage = (topic: string) => openai.requests.find((r) => r.topic === topic)?.messages.find((m) => m.role === 'user')?.content;
const runOf = async (userId: string) => {
  const [run] = await getSql()<{ id: string }[]>`SELECT id FROM generation_runs WHERE user_id = ${userId} ORDER BY created_at DESC LIMIT 1`;
  return run!.id;
};

type ListedResult = { prompt: string; title: string; status: string; metadata: { brief?: Record<string, string> } };
async function listed(c: TestClient): Promise<ListedResult[]> {
  return ((await (await c.get('/api/results?limit=100')).json()) as { results: ListedResult[] }).results;
}

describe('per-row CSV columns', () => {
  it('without JavaScript: /app/csv → the workspace carries the draft → Start → each prompt has its row’s columns → the result shows them', async () => {
    const u = await signedIn();
    const tag = Math.random().toString(36).slice(2, 8);
    const csv = [
      'topic_or_keyword;title;keywords;instructions',
      `Vegan baking ${tag};Bake it green;"vegan; cake; egg-free";Mention aquafaba twice`,
      `Budget travel ${tag};;hostels;`,
      `Plain topic ${tag};;;`,
    ].join('\r\n');
    const upload = await uploadFile(u.c, '/app/csv', csv);
    expect(upload.status).toBe(302);
    const location = upload.headers.get('location')!;
    const draftId = new URL(location, app.url).searchParams.get('topics')!;
    expect(draftId).toMatch(/^[0-9a-f-]{36}$/);

    // The workspace: the topics in the text area, the draft's id in the form, the note counting two.
    const page = await html(await u.c.get(location));
    expect(page).toContain(`name="topicsDraft" value="${draftId}"`);
    expect(page).toContain('2 topics carry a title, keywords or instructions from the CSV');
    expect(page).toContain(`Vegan baking ${tag}\nBudget travel ${tag}\nPlain topic ${tag}</textarea>`);

    // Start, as the browser posts the form; one topic retyped in other case and spacing still matches,
    // one edited topic no longer does.
    const start = await u.c.postStart('/app', {
      intent: 'generate',
      type: 'text',
      model: TEXT,
      prompts: `  vegan   BAKING ${tag}\nBudget travel ${tag} (edited)\nPlain topic ${tag}`,
      topicsDraft: draftId,
    });
    expect(start.status).toBe(302);
    const runId = await runOf(u.id);
    await waitForRun(getSql(), runId);

    const vegan = userMessage(`vegan   BAKING ${tag}`)!;
    expect(vegan).toContain('Title: use exactly this title: Bake it green');
    expect(vegan).toContain('Keywords to work in naturally: vegan; cake; egg-free');
    expect(vegan).toContain('Additional instructions for this post: Mention aquafaba twice');
    for (const topic of [`Budget travel ${tag} (edited)`, `Plain topic ${tag}`]) {
      const message = userMessage(topic)!;
      expect(message).toContain(`about: ${topic}`);
      expect(message).not.toMatch(/Title: use exactly|Keywords to work in|Additional instructions/);
    }

    // The result: the requested title is the post's title, the columns are on it (API and page).
    const results = await listed(u.c);
    const veganResult = results.find((r) => r.prompt === `vegan   BAKING ${tag}`)!;
    expect(veganResult).toMatchObject({
      status: 'completed',
      title: 'Bake it green',
      metadata: { brief: { title: 'Bake it green', keywords: 'vegan; cake; egg-free', instructions: 'Mention aquafaba twice' } },
    });
    expect(results.find((r) => r.prompt === `Plain topic ${tag}`)!.metadata.brief).toBeUndefined();
    const resultsPage = await html(await u.c.get('/app?tab=results'));
    expect(resultsPage).toMatch(/data-testid="result-brief"[\s\S]*Requested title[\s\S]*Bake it green/);
    expect(resultsPage).toContain('vegan; cake; egg-free');
    expect(resultsPage).toContain('Mention aquafaba twice');
    // Searchable by its keywords.
    const searched = (await (await u.c.get('/api/results?search=egg-free')).json()) as { results: unknown[] };
    expect(searched.results).toHaveLength(1);

    // Another user's draft id carries nothing.
    const other = await signedIn();
    await other.c.postStart('/app', {
      intent: 'generate',
      type: 'text',
      model: TEXT,
      prompts: `vegan baking ${tag} again`,
      topicsDraft: draftId,
    });
    await waitForRun(getSql(), await runOf(other.id));
    expect(userMessage(`vegan baking ${tag} again`)).not.toContain('Bake it green');
  });

  it('with JavaScript: /api/upload-csv answers a draftId only when some row has the columns; image prompts get keywords and instructions', async () => {
    const u = await signedIn();
    const tag = Math.random().toString(36).slice(2, 8);
    const plain = await uploadFile(u.c, '/api/upload-csv', `topic_or_keyword,title\nNothing extra ${tag},\n`);
    expect(await plain.json()).toMatchObject({ prompts: [`Nothing extra ${tag}`], draftId: null });

    const res = await uploadFile(
      u.c,
      '/api/upload-csv',
      `topic_or_keyword,title,instructions\nMountain lake ${tag},Dawn at the lake,"misty, pastel colours"\n`,
    );
    const body = (await res.json()) as { prompts: string[]; draftId: string };
    expect(body.draftId).toMatch(/^[0-9a-f-]{36}$/);
    const start = await u.c.postForm('/app?type=image', {
      intent: 'generate',
      type: 'image',
      model: IMAGE,
      js: '1',
      prompts: body.prompts.join('\n'),
      topicsDraft: body.draftId,
    });
    expect(start.status).toBe(302);
    expect(start.headers.get('location')).toMatch(/^\/app\?tab=results&run=/);
    await waitForRun(getSql(), await runOf(u.id));
    const prediction = String(replicate.requests.find((r) => r.prompt.includes(`Mountain lake ${tag}`))!.input.prompt);
    expect(prediction).toContain(`Mountain lake ${tag}. misty, pastel colours`);
    // The title names the result; it is not drawn into the image.
    expect(prediction).not.toContain('Dawn at the lake');
    const [result] = await listed(u.c);
    expect(result).toMatchObject({ title: 'Dawn at the lake', metadata: { brief: { instructions: 'misty, pastel colours' } } });
  });

  it('over the JSON API: POST /api/generate/text takes rows; malformed rows are a 400', async () => {
    const u = await signedIn();
    const tag = Math.random().toString(36).slice(2, 8);
    const ok = await u.c.postJson('/api/generate/text', {
      prompts: [`Sourdough ${tag}`],
      model: TEXT,
      rows: [{ topic: `Sourdough ${tag}`, keywords: 'starter, hydration' }],
    });
    expect(ok.status).toBe(200);
    const { jobId } = (await ok.json()) as { jobId: string };
    await waitForRun(getSql(), jobId);
    expect(userMessage(`Sourdough ${tag}`)).toContain('Keywords to work in naturally: starter, hydration');
    // The run's settings keep no rows (they are the item's).
    const [run] = await getSql()<{ settings: Record<string, unknown> }[]>`SELECT settings FROM generation_runs WHERE id = ${jobId}`;
    expect(run!.settings).not.toHaveProperty('rows');

    const bad = await u.c.postJson('/api/generate/text', { prompts: ['x'], model: TEXT, rows: 'not a list' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('per-topic columns');
    const long = await u.c.postJson('/api/generate/text', {
      prompts: ['x'],
      model: TEXT,
      rows: [{ topic: 'x', instructions: 'y'.repeat(2001) }],
    });
    expect(long.status).toBe(400);
  });
});
