import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { createGenUser, waitForRun } from '../support/generation';
import { germanArticle, madeUpArticle, nearCopy, repeatedArticle, seoBlock } from '../support/quality-articles';
import type { QualityReport } from '../../app/utils/quality/report';
import { startWebhookReceiver, type Peer, type ReceivedEvent } from '../support/http-peers';

// The quality report on the generation finish path (the OpenAI test server answers good, short,
// repeated, off-language and near-copy articles on cue), again after an edit, against a site's
// indexed posts, and the review list with approval.

let openai: OpenAiServer;
let receiver: Peer;
let secret = '';
const received: ReceivedEvent[] = [];
type Services = {
  start: typeof import('../../app/services/generation/start.server');
  results: typeof import('../../app/services/results.server');
  keys: typeof import('../../app/services/api-keys.server');
  loop: typeof import('../../jobs/generation-loop');
  schema: typeof import('../../app/utils/generation-schema');
  quality: typeof import('../../app/services/quality/report.server');
  review: typeof import('../../app/services/quality/review.server');
  shingles: typeof import('../../app/utils/quality/shingles');
  article: typeof import('../../app/utils/quality/article');
  providers: typeof import('../../app/services/providers.server');
  hooks: typeof import('../../app/services/webhooks.server');
};
let s: Services;
let loop: Awaited<ReturnType<Services['loop']['startGenerationLoop']>>;

const GOOD = madeUpArticle('green tea', { seed: 1 });
const HARD =
  'Notwithstanding institutional considerations, organisational responsibilities necessitate comprehensive administrative documentation.';
const hardArticle = (topic: string) =>
  [`# ${topic}`, ...Array.from({ length: 8 }, (_, i) => `## Part ${i + 1} of ${topic}\n\n${`${HARD} `.repeat(4).trim()}`)].join('\n\n');

beforeAll(async () => {
  openai = await startOpenAiServer({
    latencyMs: 10,
    script: {
      'green tea': [{ kind: 'ok', content: GOOD + seoBlock('green tea') }],
      'short tea': [
        { kind: 'ok', content: madeUpArticle('short tea', { seed: 2, words: 100, sections: { faq: false } }) + seoBlock('short tea') },
      ],
      'loop tea': [{ kind: 'ok', content: repeatedArticle('loop tea') + seoBlock('loop tea') }],
      'german tea': [{ kind: 'ok', content: germanArticle('german tea') + seoBlock('german tea') }],
      // No conclusion, FAQ or key takeaways, though the run asks for them.
      'bare tea': [
        {
          kind: 'ok',
          content:
            madeUpArticle('bare tea', { seed: 3, sections: { conclusion: false, faq: false, takeaways: false } }) + seoBlock('bare tea'),
        },
      ],
      // Written far above the requested reading level.
      'hard tea': [{ kind: 'ok', content: hardArticle('hard tea') + seoBlock('hard tea') }],
      // Its focus keyword is only in the meta description and slug.
      'odd tea': [{ kind: 'ok', content: madeUpArticle('green tea', { seed: 4 }) + seoBlock('oolong') }],
      // Answers later than the original, so it is the one that finds the other already indexed.
      'copy tea': [{ kind: 'ok', content: nearCopy(GOOD, 10) + seoBlock('green tea'), latencyMs: 1500 }],
    },
  });
  // A receiver that checks each delivery's Standard Webhooks signature.
  receiver = await startWebhookReceiver(() => secret, received);
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    GENERATION_CONCURRENCY: '10',
    GENERATION_CONCURRENCY_PER_USER: '10',
    ALLOW_PRIVATE_HOSTS: 'true',
  });
  delete process.env.OPENROUTER_API_KEY;
  s = {
    start: await import('../../app/services/generation/start.server'),
    results: await import('../../app/services/results.server'),
    keys: await import('../../app/services/api-keys.server'),
    loop: await import('../../jobs/generation-loop'),
    schema: await import('../../app/utils/generation-schema'),
    quality: await import('../../app/services/quality/report.server'),
    review: await import('../../app/services/quality/review.server'),
    shingles: await import('../../app/utils/quality/shingles'),
    article: await import('../../app/utils/quality/article'),
    providers: await import('../../app/services/providers.server'),
    hooks: await import('../../app/services/webhooks.server'),
  };
  const { startBoss } = await import('../../app/queue/boss');
  const { queues } = await import('../../app/queue/queues');
  const { handleWebhookDeliver } = await import('../../jobs/handlers/webhook-deliver');
  await (await startBoss('worker')).work('webhook-deliver', queues['webhook-deliver'].work, handleWebhookDeliver);
  loop = await s.loop.startGenerationLoop();
});

afterAll(async () => {
  await loop?.stop();
  await openai?.close();
  await receiver?.close();
});

const statusOf = (report: QualityReport | null, id: string) => report?.checks.find((c) => c.id === id)?.status;

describe('quality reports', () => {
  it('are computed as each post completes: each made-up failure fails its own check, a good post passes', { timeout: 60_000 }, async () => {
    const user = await createGenUser(getSql(), { credits: 100 });
    await s.keys.saveApiKeys(user.id, { openRouterApiKey: 'sk-test-text' });
    const input = s.schema.textGenerationSchema().parse({
      prompts: 'green tea\nshort tea\nloop tea\ngerman tea\ncopy tea\nbare tea\nhard tea\nodd tea',
      model: 'openai/gpt-4o-mini-search-preview',
      qualityGate: true,
    });
    const run = await s.start.startRun(user.id, input);
    await waitForRun(sql, run.runId);
    const [gate] = await sql<{ quality_gate: boolean }[]>`SELECT quality_gate FROM generation_runs WHERE id = ${run.runId}`;
    expect(gate!.quality_gate).toBe(true);
    const { results } = await s.results.listResults(user.id, { limit: 10 });
    const by = new Map(results.map((r) => [r.prompt, r]));
    const good = by.get('green tea')!;
    expect(good.status).toBe('completed');
    expect(good.quality?.checks.map((c) => [c.id, c.status])).toEqual([
      ['length', 'pass'],
      ['sections', 'pass'],
      ['keyword', 'pass'],
      ['reading_level', 'pass'],
      ['language', 'pass'],
      ['repetition', 'pass'],
      ['duplicates', 'pass'],
    ]);
    expect(statusOf(by.get('short tea')!.quality, 'length')).toBe('fail');
    expect(statusOf(by.get('loop tea')!.quality, 'repetition')).toBe('fail');
    expect(by.get('german tea')!.quality?.checks.find((c) => c.id === 'language')).toMatchObject({
      status: 'fail',
      params: { detected: 'deu', requested: 'English (US)' },
    });
    const copy = by.get('copy tea')!.quality?.checks.find((c) => c.id === 'duplicates');
    expect(copy).toMatchObject({ status: 'fail', params: { closest: good.title, closestSource: 'run', closestId: good.id } });
    expect(by.get('copy tea')!.quality?.status).toBe('fail');
    expect(by.get('bare tea')!.quality?.checks.find((c) => c.id === 'sections')).toMatchObject({
      status: 'fail',
      params: { missing: ['conclusion', 'faq', 'keyTakeaways'] },
    });
    expect(statusOf(by.get('hard tea')!.quality, 'reading_level')).toBe('fail');
    expect(by.get('odd tea')!.quality?.checks.find((c) => c.id === 'keyword')).toMatchObject({
      status: 'fail',
      params: { keyword: 'oolong', found: ['metaDescription', 'slug'] },
    });

    // The review list: the failing posts, not the good one; approving one moves it to Approved.
    const needs = await s.results.listResults(user.id, { review: 'needs' });
    expect(needs.results.map((r) => r.prompt).sort()).toEqual([
      'bare tea',
      'copy tea',
      'german tea',
      'hard tea',
      'loop tea',
      'odd tea',
      'short tea',
    ]);
    const { approved } = await s.review.approveResults(user.id, [by.get('loop tea')!.id]);
    expect(approved).toEqual([by.get('loop tea')!.id]);
    expect((await s.results.listResults(user.id, { review: 'approved' })).results.map((r) => r.prompt)).toEqual(['loop tea']);
    expect((await s.results.listResults(user.id, { review: 'needs' })).pagination.total).toBe(6);
    // Another owner's approval touches nothing of this one.
    const other = await createGenUser(getSql());
    expect((await s.review.approveResults(other.id, [by.get('short tea')!.id])).approved).toEqual([]);

    // An edit recomputes the report: the short post made long enough passes its length check.
    const edited = await s.results.updateResultContent(user.id, by.get('short tea')!.id, good.content!);
    expect(statusOf(edited.quality, 'length')).toBe('pass');
  });

  it("finds the closest of a site's indexed posts by its shingles and names it", async () => {
    const user = await createGenUser(getSql());
    const [site] = await sql<{ id: string }[]>`
      INSERT INTO wordpress_sites (user_id, site_name, site_url, username, app_password_sealed)
      VALUES (${user.id}, 'Blog', 'https://blog.example', 'admin', 'x') RETURNING id`;
    const siteId = Number(site!.id);
    const text = (md: string) => s.article.articleParts(s.providers.markdownToArticle(md, 't').html).text;
    const posts = Array.from({ length: 50 }, (_, i) => ({
      wpPostId: i + 1,
      title: `Post ${i + 1}`,
      md: madeUpArticle(`topic ${i}`, { seed: 1000 + i }),
    }));
    await sql`INSERT INTO wordpress_site_posts ${sql(
      posts.map((p) => ({
        site_id: siteId,
        user_id: user.id,
        wp_post_id: p.wpPostId,
        title: p.title,
        url: `https://blog.example/${p.wpPostId}`,
      })),
    )}`;
    await s.quality.indexSitePosts(
      user.id,
      siteId,
      posts.map((p) => ({ wpPostId: p.wpPostId, shingles: s.shingles.shingleHashes(text(p.md)) })),
    );
    const nobody = '00000000-0000-0000-0000-000000000000';
    const mine = s.shingles.shingleHashes(text(nearCopy(posts[17]!.md, 10)));
    const closest = await s.quality.closestPost(user.id, nobody, mine);
    expect(closest).toMatchObject({ source: 'site', title: 'Post 18', url: 'https://blog.example/18' });
    expect(closest!.similarity).toBeGreaterThan(s.shingles.DUPLICATE_FAIL);
    const distinct = await s.quality.closestPost(user.id, nobody, s.shingles.shingleHashes(text(GOOD)));
    expect(distinct?.similarity ?? 0).toBeLessThan(s.shingles.DUPLICATE_WARN);
  });

  it(
    'result.flagged: once for a post completing with a failing report (signed, with its summary); after an edit only when it turns to failing',
    { timeout: 60_000 },
    async () => {
      const user = await createGenUser(getSql(), { credits: 100 });
      await s.keys.saveApiKeys(user.id, { openRouterApiKey: 'sk-test-text' });
      // Only result.flagged is chosen: the finish path must still write it.
      secret = (await s.hooks.createEndpoint(user.id, { url: `${receiver.url}/hooks`, events: ['result.flagged'] })).secret;
      const flagged = () => received.filter((r) => r.type === 'result.flagged' && r.data.runId === run.runId);
      const settle = async (count: number) => {
        const until = Date.now() + 15_000;
        while (flagged().length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      };
      const run = await s.start.startRun(
        user.id,
        s.schema.textGenerationSchema().parse({ prompts: 'green tea\nshort tea', model: 'openai/gpt-4o-mini-search-preview' }),
      );
      await waitForRun(sql, run.runId);
      const { results } = await s.results.listResults(user.id, { limit: 10 });
      const by = new Map(results.map((r) => [r.prompt, r]));
      const [good, short] = [by.get('green tea')!, by.get('short tea')!];
      expect([good.quality?.status, short.quality?.status]).toEqual(['pass', 'fail']);
      await settle(1);
      expect(flagged()).toHaveLength(1);
      const [first] = flagged();
      expect(first!.verified).toBe(true);
      expect(first!.data).toMatchObject({ resultId: short.id, runId: run.runId, attempt: 1, cause: 'completed' });
      const summary = first!.data.quality as {
        status: string;
        failed: string[];
        checks: { id: string; params: Record<string, unknown> }[];
      };
      expect(summary.status).toBe('fail');
      expect(summary.failed).toContain('length');
      expect(summary.checks.find((c) => c.id === 'length')?.params).toMatchObject({ unit: 'words', target: 1200 });
      // The body is the one the API document describes.
      const { resultFlaggedEvent } = await import('../../app/http/api-document.server');
      resultFlaggedEvent.parse({ type: first!.type, timestamp: new Date().toISOString(), data: first!.data });

      // An edit that turns the passing post short: one event; editing it again while it stays failing: none.
      const shortHtml = short.content!;
      await s.results.updateResultContent(user.id, good.id, shortHtml);
      await settle(2);
      expect(flagged().map((e) => [e.data.resultId, e.data.cause])).toEqual([
        [short.id, 'completed'],
        [good.id, 'edited'],
      ]);
      await s.results.updateResultContent(user.id, good.id, `${shortHtml}<p>One more short line.</p>`);
      // The failing post edited and still failing: none either.
      await s.results.updateResultContent(user.id, short.id, `${shortHtml}<p>Another line.</p>`);
      // An approved post is not held: edited to pass and back to failing, it is not flagged.
      await s.review.approveResults(user.id, [good.id]);
      expect((await s.results.updateResultContent(user.id, good.id, good.content!)).quality?.status).toBe('pass');
      expect((await s.results.updateResultContent(user.id, good.id, shortHtml)).quality?.status).toBe('fail');
      // Events are written with the report (the outbox): none more than the two delivered.
      const written = await sql`SELECT id FROM webhook_events WHERE user_id = ${user.id} AND type = 'result.flagged'`;
      expect(written.map((e) => e.id).sort()).toEqual(
        flagged()
          .map((e) => e.id)
          .sort(),
      );
      expect(new Set(flagged().map((e) => e.id)).size).toBe(2);
      // A fix withdraws the approval of the failing post it rewrote: it is held again, so flagged.
      await s.review.withdrawApproval(user.id, good.id);
      await settle(3);
      expect(flagged().map((e) => [e.data.resultId, e.data.cause])).toEqual([
        [short.id, 'completed'],
        [good.id, 'edited'],
        [good.id, 'edited'],
      ]);
    },
  );
});
