import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql } from '../../db/client';
import { saveApiKeys } from '../../app/services/api-keys.server';
import { TestClient, type TestApp } from '../support/app-server';
import { createGenUser, waitForRun } from '../support/generation';
import { uploadFile } from '../support/input-tools';
import { pngBytes } from '../support/replicate-server';
import { startOpenAiServer, type ChatStep, type OpenAiServer } from '../support/openai-server';

// The workspace reviewed as a user (where the server decides): results in
// topic order, the run's story after a cancel, junk title answers, image thumbnails and the grid,
// image mode's words, the cost against the balance, CSV files only, Download all by filter and
// search. Through the real app as a browser without JavaScript sees it, in English and zh-HK.

let openai: OpenAiServer;
let app: TestApp;
let stopLoop: () => Promise<void>;
let titleAnswer: ChatStep | null = null;

const TEXT = 'openai/gpt-4o-mini-search-preview';

beforeAll(async () => {
  openai = await startOpenAiServer({
    latencyMs: 10,
    script: (req) => (req.messages.some((m) => m.content.includes('\nKeywords:\n')) ? (titleAnswer ?? undefined) : undefined),
  });
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    OPENROUTER_API_KEY: 'sk-operator',
    REPLICATE_API_TOKEN: 'r8-operator',
    GENERATION_PROVIDER_ATTEMPTS: '1',
    // Two items at a time per user: a cancel right after Start finds the rest not started.
    GENERATION_CONCURRENCY_PER_USER: '2',
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
});

type Language = 'en' | 'zh-HK';

async function signedIn(opts: Parameters<typeof createGenUser>[1] = {}, language: Language = 'en') {
  const u = await createGenUser(getSql(), opts);
  const { createSession } = await import('../../app/services/sessions.server');
  const { setCookie } = await createSession(u.id);
  const c = new TestClient(app.url);
  const [pair] = setCookie.split(';');
  c.cookies.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
  if (language !== 'en') c.cookies.set('language', language);
  return { ...u, c };
}

/** The visible text of a page: tags and React's text separators out, whitespace collapsed. */
function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/gi, ' ')
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

/** Follows one redirect (a form post's answer) and returns the page it leads to. */
async function follow(c: TestClient, res: Response): Promise<{ url: string; html: string }> {
  expect([302, 303]).toContain(res.status);
  const url = res.headers.get('location')!;
  const page = await c.get(url);
  expect(page.status).toBe(200);
  return { url, html: await page.text() };
}

/** Inserts a finished run of `prompts` (completed, one per position) at `createdAt`. */
async function insertRun(userId: string, type: 'text' | 'image', prompts: string[], createdAt: Date, status = 'completed') {
  const db = getSql();
  const [run] = await db<{ id: string }[]>`
    INSERT INTO generation_runs (user_id, type, model, total, created_at)
    VALUES (${userId}, ${type}, ${type === 'text' ? TEXT : 'black-forest-labs/flux-schnell'}, ${prompts.length}, ${createdAt}) RETURNING id`;
  const rows = await db<{ id: string; position: number }[]>`
    INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, search_text, created_at)
    SELECT ${userId}, ${run!.id}, t.i - 1, ${type}, t.p, CASE WHEN ${type} = 'text' THEN 'Title: ' || t.p END,
      CASE WHEN ${type} = 'text' THEN '<p>Body of ' || t.p || '</p>' END, ${status}, ${type === 'text' ? TEXT : 'black-forest-labs/flux-schnell'},
      1, t.p, ${createdAt}
    FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, i)
    RETURNING id, position`;
  if (type === 'image' && status === 'completed') {
    for (const row of rows) {
      const [image] = await db<{ id: string }[]>`
        INSERT INTO generation_images (user_id, result_id, attempt, idx, content_type, bytes)
        VALUES (${userId}, ${row.id}, 1, 0, 'image/png', ${pngBytes()}) RETURNING id`;
      await db`
        UPDATE generation_results SET content = ${`/images/${image!.id}`}, metadata = metadata || ${db.json({ images: [image!.id] })}
        WHERE id = ${row.id}`;
    }
  }
  return { runId: run!.id, ids: rows.sort((a, b) => a.position - b.position).map((r) => r.id) };
}

describe('item 1: results in topic order within a run, newest run first', () => {
  it('lists A…E as A…E under the newer run B…, on every path (list, type filter, search, API)', async () => {
    const { listResults } = await import('../../app/services/results.server');
    const u = await signedIn({ credits: 0 });
    const older = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'].map((p) => `${p} topic`);
    const newer = ['Foxtrot', 'Golf', 'Hotel'].map((p) => `${p} topic`);
    await insertRun(u.id, 'text', older, new Date(Date.now() - 60_000));
    await insertRun(u.id, 'text', newer, new Date());
    const expected = [...newer, ...older];

    expect((await listResults(u.id, { limit: 20 })).results.map((r) => r.prompt)).toEqual(expected);
    expect((await listResults(u.id, { limit: 20, type: 'text' })).results.map((r) => r.prompt)).toEqual(expected);
    expect((await listResults(u.id, { limit: 20, search: 'topic' })).results.map((r) => r.prompt)).toEqual(expected);
    // Pages cut the same order.
    expect((await listResults(u.id, { limit: 3, page: 2 })).results.map((r) => r.prompt)).toEqual(older.slice(0, 3));
    // A page past the end is the last page (its rows and count come from one query), an empty list page 1.
    const past = await listResults(u.id, { limit: 3, page: 9 });
    expect([past.results.map((r) => r.prompt), past.pagination]).toEqual([older.slice(3), { page: 3, limit: 3, total: 8, totalPages: 3 }]);
    expect((await listResults(u.id, { limit: 3, type: 'image' })).pagination).toEqual({ page: 1, limit: 3, total: 0, totalPages: 1 });
    const api = (await (await u.c.get('/api/results?limit=20')).json()) as { results: { prompt: string }[] };
    expect(api.results.map((r) => r.prompt)).toEqual(expected);
    // The page shows them in that order too.
    const text = visibleText(await (await u.c.get('/app?tab=results')).text());
    const at = expected.map((p) => text.indexOf(`Title: ${p}`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});

describe('item 2: cancel tells the right story (no JavaScript: the run page)', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: cancel right after Start — completed, canceled and refunded per run, on the run page and the results summary`, async () => {
      const u = await signedIn({ credits: 20 }, language);
      openai.setLatency(4000); // generous: the cancel must land while the first items are at the provider
      try {
        const topics = Array.from({ length: 6 }, (_, i) => `cancel story ${language} ${i}`);
        const start = await u.c.postStart('/app', { intent: 'generate', type: 'text', model: TEXT, prompts: topics.join('\n') });
        const runId = /\/app\/runs\/([0-9a-f-]{36})/.exec(start.headers.get('location') ?? '')?.[1];
        expect(runId, `redirect ${start.status} ${start.headers.get('location')}`).toBeTruthy();
        const canceled = await follow(u.c, await u.c.postForm(`/app/runs/${runId}`, {}));
        const [row] = await getSql()<{ canceled: number; processing: number }[]>`
          SELECT count(*) FILTER (WHERE status = 'canceled')::int AS canceled, count(*) FILTER (WHERE status = 'processing')::int AS processing
          FROM generation_results WHERE run_id = ${runId!}`;
        // The per-user cap (2) left at least 4 items not started: the cancel stopped them.
        expect(row!.canceled).toBeGreaterThanOrEqual(4);
        const toast = visibleText(canceled.html);
        if (language === 'en') {
          expect(toast).toContain(`${row!.canceled} items that had not started were canceled and refunded.`);
          if (row!.processing > 0) expect(toast).toContain(`${row!.processing} item`);
        } else {
          expect(toast).toContain(`${row!.canceled} 項尚未開始的項目已取消並退回點數。`);
        }

        await waitForRun(getSql(), runId!);
        const [final] = await getSql()<{ completed: number; canceled: number }[]>`
          SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status = 'canceled')::int AS canceled
          FROM generation_results WHERE run_id = ${runId!}`;
        expect(final!.completed + final!.canceled).toBe(6);
        const page = visibleText(await (await u.c.get(`/app/runs/${runId}`)).text());
        const results = visibleText(await (await u.c.get(`/app?tab=results&run=${runId}`)).text());
        for (const text of [page, results]) {
          if (language === 'en') {
            expect(text).toContain('Generation canceled');
            expect(text).toContain(`Completed: ${final!.completed}`);
            expect(text).toContain('Failed: 0');
            expect(text).toContain(`Canceled: ${final!.canceled}`);
            expect(text).toContain(`Refunded: ${final!.canceled} credits`);
          } else {
            expect(text).toContain('已取消生成');
            expect(text).toContain(`完成: ${final!.completed}`);
            expect(text).toContain(`已取消: ${final!.canceled}`);
            expect(text).toContain(`已退回: ${final!.canceled} 點`);
          }
        }
        // The watched run forwards to the results with the summary toast.
        const watched = await follow(u.c, await u.c.get(`/app/runs/${runId}?watch=1`));
        if (language === 'en')
          expect(visibleText(watched.html)).toContain(
            `${final!.completed} of 6 completed, 0 failed, ${final!.canceled} canceled; ${final!.canceled} credits refunded.`,
          );
        else expect(visibleText(watched.html)).toContain(`6 項中 ${final!.completed} 項完成、0 項失敗、${final!.canceled} 項已取消`);
      } finally {
        openai.setLatency(10);
      }
    });
  }

  it('a cancel after every item started says nothing was stopped, and the run ends "finished", not "canceled"', async () => {
    const u = await signedIn({ credits: 20 });
    openai.setLatency(4000); // generous: the cancel must land while the first items are at the provider
    try {
      const start = await u.c.postStart('/app', { intent: 'generate', type: 'text', model: TEXT, prompts: 'late one\nlate two' });
      const runId = /\/app\/runs\/([0-9a-f-]{36})/.exec(start.headers.get('location') ?? '')![1]!;
      // Wait until both items are at the provider.
      for (const until = Date.now() + 20_000; ;) {
        const [row] = await getSql()<{ n: number }[]>`
          SELECT count(*)::int AS n FROM generation_results WHERE run_id = ${runId} AND started_at IS NOT NULL AND status = 'processing'`;
        if (row!.n === 2) break;
        if (Date.now() > until) throw new Error('the items never started');
        await new Promise((r) => setTimeout(r, 50));
      }
      const canceled = visibleText((await follow(u.c, await u.c.postForm(`/app/runs/${runId}`, {}))).html);
      expect(canceled).toContain('0 items that had not started were canceled and refunded.');
      expect(canceled).toContain('2 items had already started: they will finish and be charged if they succeed.');
      await waitForRun(getSql(), runId);
      const page = visibleText(await (await u.c.get(`/app/runs/${runId}`)).text());
      expect(page).toContain('Generation finished');
      expect(page).toContain('Completed: 2');
      expect(page).toContain('Canceled: 0');
      expect(page).toContain('Refunded: 0 credits');
    } finally {
      openai.setLatency(10);
    }
  });
});

describe('item 3: junk title answers', () => {
  it('parseTitles strips markup, caps length, and refuses anything but one title per keyword', async () => {
    const { parseTitles, TITLE_MAX_LENGTH } = await import('../../app/services/titles.server');
    expect(parseTitles('{"titles": ["<b>Bold</b> &amp; <i>brave</i>", "Two"]}', 2)).toEqual(['Bold & brave', 'Two']);
    expect(parseTitles('<ol><li>First</li><li>Second</li></ol>', 2)).toEqual(['First', 'Second']);
    expect(parseTitles('{"titles": ["&lt;script&gt;alert(1)&lt;/script&gt;Safe"]}', 1)).toEqual(['Safe']);
    // An article, an HTML page, a wall of text: not titles.
    const article = '<html><body><h1>Gardening</h1><p>' + 'Lorem ipsum dolor sit amet. '.repeat(200) + '</p><p>More.</p></body></html>';
    expect(parseTitles(article, 1)).toBeNull();
    expect(parseTitles('word '.repeat(1000), 1)).toBeNull();
    expect(parseTitles('# Heading\n\nParagraph one.\n\nParagraph two.\n\nParagraph three.', 2)).toBeNull();
    // The wrong number of titles.
    expect(parseTitles('{"titles": ["A", "B", "C"]}', 2)).toBeNull();
    expect(parseTitles('A\nB\nC', 2)).toBeNull();
    // A long title is capped at a word boundary.
    const long = parseTitles(`{"titles": ["${'Very long title words '.repeat(10).trim()}"]}`, 1)![0]!;
    expect([...long].length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(long.endsWith('…')).toBe(true);
  });

  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: a junk answer is refused with the agreed message (API and the no-JavaScript form); a clean one has no HTML`, async () => {
      const u = await signedIn({ credits: 0 }, language);
      await saveApiKeys(u.id, { openRouterApiKey: 'sk-user' });
      const message = language === 'en' ? 'Failed to generate blog post titles. Please try again.' : '無法生成網誌文章標題，請再試一次。';
      titleAnswer = { kind: 'ok', content: '<article><h1>Composting</h1>' + '<p>Composting is great. </p>'.repeat(250) + '</article>' };
      try {
        const api = await u.c.postJson('/api/generate-blog-title', { keywords: 'composting', multipleKeywords: false });
        expect(api.status).toBe(502);
        expect(((await api.json()) as { error: string }).error).toBe(message);
        // Without JavaScript: the keywords stay in the text area, with the failure toast; no HTML pasted.
        const page = await follow(u.c, await u.c.postForm('/app/titles', { prompts: 'composting', model: TEXT }));
        expect(visibleText(page.html)).toContain(message);
        const area = /<textarea[^>]*name="prompts"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.html)?.[1] ?? '';
        expect(area.trim()).toBe('composting');

        titleAnswer = { kind: 'ok', content: '{"titles": ["<em>Compost</em> at home", "Tea &amp; <b>cake</b>"]}' };
        const ok = await u.c.postJson('/api/generate-blog-title', { keywords: 'compost\ntea', multipleKeywords: true });
        expect(await ok.json()).toEqual({ titles: ['Compost at home', 'Tea & cake'] });
      } finally {
        titleAnswer = null;
      }
    });
  }
});

describe('items 4 and 5: image thumbnails, the grid, image mode words', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: an image result shows a lazy thumbnail from our image route; the Images filter offers a grid`, async () => {
      const u = await signedIn({ credits: 0 }, language);
      await insertRun(u.id, 'image', ['A red kite', 'A blue boat'], new Date());
      const list = await (await u.c.get('/app?tab=results&type=image')).text();
      const thumbs = [...list.matchAll(/<img[^>]*data-testid="result-thumbnail"[^>]*>/g)].map((m) => m[0]);
      expect(thumbs).toHaveLength(2);
      for (const img of thumbs) {
        expect(img).toMatch(/src="\/images\/[0-9a-f-]{36}"/);
        expect(img).toContain('loading="lazy"');
      }
      const src = /src="(\/images\/[0-9a-f-]{36})"/.exec(thumbs[0]!)![1]!;
      expect((await u.c.get(src)).headers.get('content-type')).toBe('image/png');
      expect(visibleText(list)).toContain(language === 'en' ? 'Grid' : '格狀');
      expect(list).toContain('href="/app?tab=results&amp;type=image&amp;view=grid"');

      const grid = await (await u.c.get('/app?tab=results&type=image&view=grid')).text();
      expect(grid).toContain('data-testid="results-grid"');
      const tiles = [...grid.matchAll(/<img[^>]*src="(\/images\/[0-9a-f-]{36})"[^>]*loading="lazy"[^>]*>/g)];
      expect(tiles.length).toBe(2);
    });

    it(`${language}: image mode has its own placeholder, counter and messages, and no title tool`, async () => {
      const u = await signedIn({ credits: 0 }, language);
      const text = visibleText(await (await u.c.get('/app')).text());
      const image = await (await u.c.get('/app?type=image')).text();
      const imageText = visibleText(image);
      if (language === 'en') {
        expect(text).toContain('Generate title');
        expect(text).toContain('0 topics');
        expect(imageText).not.toContain('Generate title');
        expect(imageText).toContain('0 prompts');
        expect(imageText).not.toContain('0 topics');
        expect(image).toContain('placeholder="A lighthouse at dawn, watercolour');
        expect(image).not.toContain('How to start a vegetable garden');
      } else {
        expect(text).toMatch(/生成(多個)?標題/);
        expect(imageText).not.toMatch(/生成(多個)?標題/);
        expect(imageText).toContain('0 個提示');
        expect(image).toContain('placeholder="清晨的燈塔');
      }
      // An empty image run is refused in image words.
      const refused = await u.c.postForm('/app?type=image', {
        intent: 'generate',
        type: 'image',
        model: 'black-forest-labs/flux-schnell',
        prompts: '  \n ',
      });
      expect(refused.status).toBe(400);
      expect(visibleText(await refused.text())).toContain(language === 'en' ? 'No valid image prompts found.' : '找不到有效的圖片提示。');
    });
  }
});

describe('item 6: credits before Start (no JavaScript: the refusal links to more credits)', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: 6 topics with 5 credits → 402, the message and a link to upgrade, topics kept`, async () => {
      const u = await signedIn({ status: 'free' }, language);
      const topics = Array.from({ length: 6 }, (_, i) => `short ${i}`).join('\n');
      const res = await u.c.postStart('/app', { intent: 'generate', type: 'text', model: TEXT, prompts: topics });
      expect(res.status).toBe(402);
      const html = await res.text();
      expect(visibleText(html)).toContain(
        language === 'en'
          ? 'Not enough credits: this run needs 6 credits and you have 5 credits. Remove topics, or get more credits.'
          : '點數不足：這個批次需要 6 點，你只有 5 點。請減少主題，或取得更多點數。',
      );
      expect(html).toMatch(new RegExp(`<a[^>]*href="/subscription"[^>]*>${language === 'en' ? 'Upgrade to Pro' : '升級至 Pro'}</a>`));
      expect(html).toContain('short 5');
    });
  }
});

describe('item 7: only CSV files are imported', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: notes.txt is refused by the API and the page with 'Invalid File' / 'Please upload a CSV file.'`, async () => {
      const u = await signedIn({ credits: 0 }, language);
      const message = language === 'en' ? 'Please upload a CSV file.' : '請上載 CSV 檔案。';
      const api = await uploadFile(u.c, '/api/upload-csv', 'topic\nA note\n', 'notes.txt', 'text/plain');
      expect(api.status).toBe(400);
      expect(((await api.json()) as { error: string }).error).toBe(message);
      const page = await follow(u.c, await uploadFile(u.c, '/app/csv', 'topic\nA note\n', 'notes.txt', 'text/plain'));
      expect(page.url).toBe('/app?input=csv');
      const text = visibleText(page.html);
      expect(text).toContain(language === 'en' ? 'Invalid File' : '檔案無效');
      expect(text).toContain(message);
      // A .csv still works, whatever type the browser gave it.
      const csv = await uploadFile(u.c, '/api/upload-csv', 'topic\nA topic\n', 'topics.csv', 'application/octet-stream');
      expect(csv.status).toBe(200);
    });
  }
});

describe('item 8: Download all takes the filter and the search', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: the ZIP holds what the list shows; nothing matching is said on the page and by the API`, async () => {
      const u = await signedIn({ credits: 0 }, language);
      await insertRun(u.id, 'text', ['Lavender fields', 'Tulip care'], new Date(Date.now() - 1000));
      await insertRun(u.id, 'image', ['Lavender sunset'], new Date());
      const zipOf = async (query: string) => {
        const res = await u.c.get(`/api/results/download-all${query}`);
        return { status: res.status, text: res.headers.get('x-text-files'), images: res.headers.get('x-image-files'), body: res };
      };
      expect(await zipOf('')).toMatchObject({ status: 200, text: '2', images: '1' });
      expect(await zipOf('?type=text')).toMatchObject({ status: 200, text: '2', images: '0' });
      expect(await zipOf('?type=image')).toMatchObject({ status: 200, text: '0', images: '1' });
      const searched = await zipOf('?search=lavender&type=text');
      expect(searched).toMatchObject({ status: 200, text: '1', images: '0' });
      const bytes = Buffer.from(await searched.body.arrayBuffer());
      expect(bytes.subarray(0, 2).toString()).toBe('PK');
      const none = await zipOf('?search=orchid');
      expect(none.status).toBe(404);

      // The page's link carries the filter and search; with nothing completed matching, it says so.
      const page = await (await u.c.get('/app?tab=results&type=text&search=lavender')).text();
      expect(page).toContain('href="/api/results/download-all?type=text&amp;search=lavender"');
      const empty = await (await u.c.get('/app?tab=results&search=orchid')).text();
      expect(empty).not.toContain('/api/results/download-all');
      expect(visibleText(empty)).toContain(
        language === 'en' ? 'Nothing to download: no completed result matches this filter or search.' : '沒有已完成的結果符合此篩選或搜尋',
      );
    });
  }
});

describe('item 9: templates (no JavaScript: the templates page)', () => {
  for (const language of ['en', 'zh-HK'] as const) {
    it(`${language}: the name is a link that loads the template; once deleted, its link shows no banner`, async () => {
      const u = await signedIn({ credits: 0 }, language);
      const name = `Weekly ${language} ${Date.now()}`;
      const saved = await u.c.postForm('/app/templates', { name, type: 'text', toneOfVoice: 'Humorous' });
      expect([302, 303]).toContain(saved.status);
      const list = await (await u.c.get('/app/templates?type=text')).text();
      const tag = new RegExp(`<a[^>]*data-testid="template-name"[^>]*>${name}</a>`).exec(list)?.[0] ?? '';
      const link = /href="(\/app\?template=[0-9a-f-]{36})"/.exec(tag);
      expect(link, 'the name links to the workspace with the template').toBeTruthy();
      const banner = language === 'en' ? `Active template: ${name}` : `使用中的範本：${name}`;
      const loaded = await u.c.get(link![1]!);
      expect(loaded.status).toBe(200);
      expect(visibleText(await loaded.text())).toContain(banner);

      const id = /template=([0-9a-f-]{36})/.exec(link![1]!)![1]!;
      const deleted = await follow(u.c, await u.c.postForm('/app/templates', { intent: 'delete', id, type: 'text' }));
      expect(visibleText(deleted.html)).toContain(language === 'en' ? 'Template deleted' : '範本已刪除');
      const after = await u.c.get(link![1]!);
      expect(after.status).toBe(200);
      const afterText = visibleText(await after.text());
      expect(afterText).not.toContain(name);
      expect(afterText).not.toContain(language === 'en' ? 'Active template' : '使用中的範本');
    });
  }
});
