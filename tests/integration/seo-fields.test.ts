import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { createGenUser, waitForRun } from '../support/generation';

// The SEO fields come with the article (the same provider call, the test server
// answering the prompt's block), fall back to derived values when the model leaves them out, work
// for results made before (NULL columns), and are edited with the result.

let openai: OpenAiServer;
type Services = {
  gen: typeof import('../../app/services/generation/start.server');
  results: typeof import('../../app/services/results.server');
  keys: typeof import('../../app/services/api-keys.server');
  loop: typeof import('../../jobs/generation-loop');
  schema: typeof import('../../app/utils/generation-schema');
};
let s: Services;
let loop: Awaited<ReturnType<Services['loop']['startGenerationLoop']>>;

beforeAll(async () => {
  openai = await startOpenAiServer({ latencyMs: 5 });
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, GENERATION_PROVIDER_ATTEMPTS: '2' });
  delete process.env.OPENROUTER_API_KEY;
  s = {
    gen: await import('../../app/services/generation/start.server'),
    results: await import('../../app/services/results.server'),
    keys: await import('../../app/services/api-keys.server'),
    loop: await import('../../jobs/generation-loop'),
    schema: await import('../../app/utils/generation-schema'),
  };
  loop = await s.loop.startGenerationLoop();
});

afterAll(async () => {
  await loop?.stop();
  await openai?.close();
});

async function runOne(topic: string) {
  const u = await createGenUser(getSql(), { credits: 5 });
  await s.keys.saveApiKeys(u.id, { openRouterApiKey: 'sk-test-text' });
  const run = await s.gen.startRun(
    u.id,
    s.schema.textGenerationSchema().parse({ prompts: topic, model: 'openai/gpt-4o-mini-search-preview' }),
  );
  await waitForRun(getSql(), run.runId);
  return { userId: u.id, result: await s.results.getResult(u.id, run.resultIds[0]!) };
}

describe('SEO fields of a text result', () => {
  it('are generated in the same provider call and stored; the block is not part of the article', async () => {
    const before = openai.requests.length;
    const { result } = await runOne('Composting at home');
    expect(openai.requests.length - before).toBe(1);
    expect(openai.requests.at(-1)!.messages[0]!.content).toContain('---SEO---');
    expect(result.seo).toEqual({
      metaDescription: 'A practical guide to Composting at home: why it matters and the first steps.',
      slug: 'composting-at-home-guide',
      focusKeyword: 'Composting at home',
      seoTitle: 'Composting at home made simple',
      stored: true,
    });
    expect(result.content).not.toMatch(/SEO|Meta description|Slug:/);
    const [row] = await sql<{ seo_description: string; seo_slug: string; seo_keyword: string; seo_title: string }[]>`
      SELECT seo_description, seo_slug, seo_keyword, seo_title FROM generation_results WHERE id = ${result.id}`;
    expect(row).toEqual({
      seo_description: result.seo!.metaDescription,
      seo_slug: result.seo!.slug,
      seo_keyword: result.seo!.focusKeyword,
      seo_title: result.seo!.seoTitle,
    });
  });

  it('fall back when the model leaves them out: slug from the title, description from the first paragraph cut at a word', async () => {
    const long = 'Word '.repeat(60).trim();
    openai.setScript((req) =>
      req.topic === 'No seo block' ? { kind: 'ok', content: `# Träume & Ideen: ein Test\n\n${long} end.\n\n## More\n\nText.` } : undefined,
    );
    const { result } = await runOne('No seo block');
    openai.setScript(undefined);
    expect(result.seo!.slug).toBe('traume-ideen-ein-test');
    // No SEO title from the model: the title, and it follows an edited title (nothing stored).
    expect(result.seo!.seoTitle).toBe('Träume & Ideen: ein Test');
    const [stored] = await sql<{ seo_title: string | null }[]>`SELECT seo_title FROM generation_results WHERE id = ${result.id}`;
    expect(stored!.seo_title).toBeNull();
    expect(result.seo!.focusKeyword).toBe('No seo block');
    expect([...result.seo!.metaDescription].length).toBeLessThanOrEqual(155);
    expect(result.seo!.metaDescription).toMatch(/^Word Word .*Word…$/);
  });

  it('a result made before them (NULL columns) shows derived fields; an edit stores the user’s', async () => {
    const { userId, result } = await runOne('Old result topic');
    await sql`UPDATE generation_results SET seo_description = NULL, seo_slug = NULL, seo_keyword = NULL, seo_title = NULL WHERE id = ${result.id}`;
    const old = await s.results.getResult(userId, result.id);
    expect(old.seo).toMatchObject({ slug: 'old-result-topic-a-practical-guide', focusKeyword: 'Old result topic', stored: false });
    expect(old.seo!.metaDescription).toBe('This article explains Old result topic in plain words.');
    const edited = await s.results.updateResultContent(userId, result.id, old.content!, {
      metaDescription: '  My own   description ',
      slug: 'My Own Slug!',
      focusKeyword: 'own keyword',
    });
    expect(edited.seo).toEqual({
      metaDescription: 'My own description',
      slug: 'my-own-slug',
      focusKeyword: 'own keyword',
      seoTitle: 'Old result topic: a practical guide',
      stored: true,
    });
    // An edit of the text alone keeps them.
    const again = await s.results.updateResultContent(userId, result.id, '<p>New text</p>');
    expect(again.seo).toEqual(edited.seo);
  });

  it('the title is edited with the text: a leading H1 becomes the title, a changed title wins, the body keeps no H1', async () => {
    const { userId, result } = await runOne('Titled topic');
    expect(result.title).toBe('Titled topic: a practical guide');
    // Editing the H1 at the top of the text renames the result; the body loses the H1.
    const byHeading = await s.results.updateResultContent(userId, result.id, '<h1>Renamed  by its H1</h1><p>Body</p>', {
      title: 'Titled topic: a practical guide',
    });
    expect(byHeading.title).toBe('Renamed by its H1');
    expect(byHeading.content).toBe('<p>Body</p>');
    // The model's SEO title is kept (a stored field is not rewritten by a rename).
    expect(byHeading.seo!.seoTitle).toBe('Titled topic made simple');
    // A title typed in the same edit wins over a leading H1.
    const typed = await s.results.updateResultContent(userId, result.id, '<h1>Old heading</h1><p>Body</p>', {
      title: 'Typed title',
      seoTitle: 'Typed SEO title',
    });
    expect(typed.title).toBe('Typed title');
    expect(typed.content).toBe('<p>Body</p>');
    expect(typed.seo!.seoTitle).toBe('Typed SEO title');
    // The title is searchable under its new name.
    const found = await s.results.listResults(userId, { search: 'Typed title' });
    expect(found.results.map((r) => r.id)).toContain(result.id);
  });

  it('the editor schema refuses a description over 155 characters with the message', () => {
    const schema = s.schema.resultContentSchema((k, o) => `${k}:${JSON.stringify(o ?? {})}`);
    const bad = schema.safeParse({ content: '<p>x</p>', metaDescription: 'x'.repeat(156) });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toBe('validation.metaDescriptionTooLong:{"max":155}');
    expect(schema.safeParse({ content: '<p>x</p>', metaDescription: '說'.repeat(155) }).success).toBe(true);
    const longTitle = schema.safeParse({ content: '<p>x</p>', seoTitle: 'x'.repeat(61) });
    expect(longTitle.error!.issues[0]!.message).toBe('validation.seoTitleTooLong:{"max":60}');
    expect(schema.safeParse({ content: '<p>x</p>', title: '  ' }).success).toBe(false);
  });
});
