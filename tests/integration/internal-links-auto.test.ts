import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../db/embedded';
import { getSql, sql } from '../../db/client';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { createGenUser, statusCounts, waitForRun } from '../support/generation';
import { startWordPress, type WordPressSite } from '../support/wordpress';

// Internal links: a text run is linked by itself once its last item has ended,
// through the `link-run` queue, as its settings say. The real generation loop generates the posts
// from the OpenAI-compatible test server; the real WordPress of the test harness is the default
// site, never read before: the job reads its posts first. A site that cannot be read does not stop
// linking (the run's posts link among themselves); a run with no site links by slug; a run with
// linking off is left alone; the job replayed finds the run linked and does nothing.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

const TEXT = 'openai/gpt-4o-mini-search-preview';
// Long words: a phrase to link on must name a subject ("espresso", not "tea").
const SUBJECTS = ['espresso', 'sourdough', 'kombucha', 'croissant', 'matcha'];
const SEEDED = 10;

/** Each post is about its subject and mentions the next two subjects in later sentences. */
function article(topic: string): string {
  const i = SUBJECTS.findIndex((s) => topic.includes(s));
  const subject = SUBJECTS[i] ?? topic;
  const a = SUBJECTS[(i + 1) % SUBJECTS.length]!;
  const b = SUBJECTS[(i + 2) % SUBJECTS.length]!;
  return [
    `# ${subject[0]!.toUpperCase()}${subject.slice(1)} at home`,
    '',
    `Everyone starts somewhere with ${subject}. Good ${subject} needs patience, and ${a} follows the same rules.`,
    '',
    `## Going further`,
    '',
    `Some readers pair it with ${b} on weekends. Others prefer ${a} in the morning and ${b} at night.`,
    '',
  ].join('\n');
}

let openai: OpenAiServer;
let wp: WordPressSite;
type Modules = {
  gen: typeof import('../../app/services/generation/start.server');
  links: typeof import('../../app/services/internal-links.server');
  wordpress: typeof import('../../app/services/wordpress/sites.server');
  results: typeof import('../../app/services/results.server');
  schema: typeof import('../../app/utils/generation-schema');
};
let m: Modules;
let stopLoop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  [openai, wp] = await Promise.all([startOpenAiServer({ latencyMs: 5, article }), startWordPress()]);
  Object.assign(process.env, { OPENROUTER_BASE_URL: openai.url, OPENROUTER_API_KEY: 'sk-operator' });
  const out = await wp.php(`
    require_once ABSPATH . 'wp-admin/includes/taxonomy.php';
    $subjects = ${JSON.stringify(SUBJECTS)};
    for ($i = 1; $i <= ${SEEDED}; $i++) {
      $s = $subjects[$i % count($subjects)];
      wp_insert_post(['post_title' => "Guide $i: " . ucfirst($s) . " basics", 'post_content' => "<p>All about $s.</p>",
        'post_status' => 'publish', 'post_category' => [wp_create_category(ucfirst($s) . ' guides')], 'tags_input' => [$s]]);
    }
    echo 'seeded';`);
  expect(out).toContain('seeded');
  m = {
    gen: await import('../../app/services/generation/start.server'),
    links: await import('../../app/services/internal-links.server'),
    wordpress: await import('../../app/services/wordpress/sites.server'),
    results: await import('../../app/services/results.server'),
    schema: await import('../../app/utils/generation-schema'),
  };
  const { startBoss } = await import('../../app/queue/boss');
  const { queues } = await import('../../app/queue/queues');
  const { handleLinkRun } = await import('../../jobs/handlers/link-run');
  await (await startBoss('worker')).work('link-run', queues['link-run'].work, handleLinkRun);
  stopLoop = (await (await import('../../jobs/generation-loop')).startGenerationLoop()).stop;
}, 180_000);

afterAll(async () => {
  await stopLoop?.();
  await openai?.close();
  await wp?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function generate(userId: string, prompts: string[]) {
  const run = await m.gen.startRun(userId, m.schema.textGenerationSchema().parse({ prompts: prompts.join('\n'), model: TEXT }));
  await waitForRun(getSql(), run.runId);
  expect(await statusCounts(getSql(), run.runId)).toEqual({ completed: prompts.length });
  return run.runId;
}

const linkedAt = (runId: string) => async () =>
  (await sql<{ linked_at: Date | null }[]>`SELECT linked_at FROM generation_runs WHERE id = ${runId}`)[0]!.linked_at;

async function linksOf(runId: string) {
  return sql<
    {
      result_id: string;
      target_result_id: string | null;
      target_key: string;
      target_url: string | null;
      target_slug: string | null;
      anchor: string;
      sentence: string;
    }[]
  >`
    SELECT l.result_id, l.target_result_id, l.target_key, l.target_url, l.target_slug, l.anchor, l.sentence
    FROM result_links l JOIN generation_results r ON r.id = l.result_id WHERE r.run_id = ${runId} AND l.removed_at IS NULL ORDER BY l.result_id, l.position`;
}

async function linkJobs(runId: string) {
  return sql<{ state: string }[]>`SELECT state FROM pgboss.job WHERE name = 'link-run' AND singleton_key = ${runId}`;
}

/** Every link: its anchor verbatim in its sentence, never to its own post, no target twice in a post. */
function expectWellFormed(links: Awaited<ReturnType<typeof linksOf>>) {
  for (const l of links) {
    expect(l.sentence).toContain(l.anchor);
    expect(l.target_result_id).not.toBe(l.result_id);
    // Never on the first sentence of a paragraph that opens the post.
    expect(l.sentence.startsWith('Everyone starts')).toBe(false);
  }
  const keys = links.map((l) => `${l.result_id} ${l.target_key}`);
  expect(new Set(keys).size).toBe(keys.length);
}

describe('a finished run is linked by itself', () => {
  it('reads the default site posts first when they were never read, and links the run to them and to itself, once', async () => {
    const user = await createGenUser(sql, { credits: 20, label: 'autolink' });
    const site = await m.wordpress.createSite(user.id, {
      siteUrl: wp.url,
      username: wp.username,
      appPassword: wp.appPassword,
      isDefault: true,
    });
    expect((await m.links.sitePosts(user.id, site.id)).refreshedAt).toBeNull();

    const runId = await generate(
      user.id,
      SUBJECTS.map((s) => `${s} for beginners`),
    );
    const at = await until('the run to be linked', linkedAt(runId));

    // The site was read by the job: its published posts (+ WordPress's own "Hello world!").
    const cache = await m.links.sitePosts(user.id, site.id);
    expect(cache.refreshedAt).toBeInstanceOf(Date);
    expect(cache.posts).toHaveLength(SEEDED + 1);

    const links = await linksOf(runId);
    expectWellFormed(links);
    const results = await sql<{ id: string }[]>`SELECT id FROM generation_results WHERE run_id = ${runId}`;
    for (const r of results) expect(links.filter((l) => l.result_id === r.id).length).toBeGreaterThan(0);
    // To the site's posts and to the run's own posts (planned on the site), all absolute URLs on it.
    expect(links.some((l) => l.target_key.startsWith('site:'))).toBe(true);
    expect(links.some((l) => l.target_result_id !== null)).toBe(true);
    for (const l of links) expect(l.target_url?.startsWith(wp.url)).toBe(true);

    // A download lists each post's kept links with their absolute URLs on the site.
    for (const r of results) {
      const own = links.filter((l) => l.result_id === r.id);
      const file = (await m.results.resultDownload(user.id, r.id)).body.toString('utf8');
      expect(file).toContain(`\nInternal links:\n${own.map((l) => `- ${l.anchor} → ${l.target_url}`).join('\n')}\n`);
    }

    // Linked once: the job is done, and a replay finds the run linked and changes nothing.
    await until('the job to complete', async () => (await linkJobs(runId)).every((j) => j.state === 'completed'));
    expect(await m.links.linkFinishedRun(user.id, runId)).toMatchObject({ linked: false });
    expect(await linkedAt(runId)()).toEqual(at);
    expect(await linksOf(runId)).toEqual(links);
  }, 120_000);

  it('links within the run when the site cannot be read', async () => {
    const user = await createGenUser(sql, { credits: 20, label: 'autolink-down' });
    // Nothing listens there: every read of the site fails.
    const down = `http://127.0.0.1:${await freePort()}`;
    await m.wordpress.createSite(user.id, { siteUrl: down, username: 'admin', appPassword: 'xxxx xxxx xxxx xxxx', isDefault: true });

    const runId = await generate(
      user.id,
      SUBJECTS.map((s) => `${s} explained`),
    );
    await until('the run to be linked', linkedAt(runId));
    await until('the job to complete', async () => (await linkJobs(runId)).every((j) => j.state === 'completed'));

    const links = await linksOf(runId);
    expect(links.length).toBeGreaterThanOrEqual(SUBJECTS.length);
    expectWellFormed(links);
    // Only the run's own posts, at their planned addresses on the site.
    for (const l of links) {
      expect(l.target_result_id).not.toBeNull();
      expect(l.target_url?.startsWith(`${down}/`)).toBe(true);
    }
    const [row] = await sql<{ posts_refreshed_at: Date | null }[]>`
      SELECT posts_refreshed_at FROM wordpress_sites WHERE user_id = ${user.id}`;
    expect(row!.posts_refreshed_at).toBeNull();
  }, 120_000);

  it('links a run with no site among its own posts by slug', async () => {
    const user = await createGenUser(sql, { credits: 20, label: 'autolink-nosite' });
    const runId = await generate(
      user.id,
      SUBJECTS.map((s) => `${s} tips`),
    );
    await until('the run to be linked', linkedAt(runId));
    const links = await linksOf(runId);
    expect(links.length).toBeGreaterThanOrEqual(SUBJECTS.length);
    expectWellFormed(links);
    for (const l of links) {
      expect(l.target_url).toBeNull();
      expect(l.target_slug).toMatch(/^[a-z-]+$/);
    }
  }, 120_000);

  it('leaves a run alone when its linking is off, and links it again when a post completes after it was linked', async () => {
    const user = await createGenUser(sql, { credits: 20, label: 'autolink-off' });
    const runId = await generate(user.id, ['espresso off', 'sourdough off']);
    await until('the run to be linked', linkedAt(runId));
    const results = await sql<{ id: string }[]>`SELECT id FROM generation_results WHERE run_id = ${runId}`;

    // Off: the ending of an item does not queue it, and the job does nothing.
    await m.links.saveRunLinkSettings(user.id, runId, { enabled: false, count: 3, sitePosts: true, siteId: null });
    expect(await m.links.linkWhenRunEnds(user.id, { resultId: results[0]!.id })).toBe(false);
    expect(await m.links.linkFinishedRun(user.id, runId)).toMatchObject({ linked: false });

    // On again, with a post completed after the last linking (a retried one): it is linked again.
    await m.links.saveRunLinkSettings(user.id, runId, { enabled: true, count: 3, sitePosts: true, siteId: null });
    expect(await m.links.linkFinishedRun(user.id, runId)).toMatchObject({ linked: false });
    await sql`
      UPDATE generation_results SET completed_at = (SELECT linked_at FROM generation_runs WHERE id = ${runId}) + interval '1 millisecond'
      WHERE id = ${results[0]!.id}`;
    expect(await m.links.linkWhenRunEnds(user.id, { resultId: results[0]!.id })).toBe(true);
    await until('the run to be linked again', async () => {
      const now = await linkedAt(runId)();
      const [r] = await sql<{ completed_at: Date }[]>`SELECT completed_at FROM generation_results WHERE id = ${results[0]!.id}`;
      return now && now >= r!.completed_at;
    });
    // Eight items seen ending at once queue it at most once waiting (and once running), and the
    // jobs find it linked: the links do not change.
    const before = await linksOf(runId);
    const linkedBefore = await linkedAt(runId)();
    const queued = await Promise.all(
      results.concat(results, results, results).map((r) => m.links.linkWhenRunEnds(user.id, { resultId: r.id })),
    );
    expect(queued.every(Boolean)).toBe(true);
    const waiting = (await linkJobs(runId)).filter((j) => j.state === 'created');
    expect(waiting.length).toBeLessThanOrEqual(1);
    await until('the jobs to complete', async () => (await linkJobs(runId)).every((j) => j.state === 'completed'));
    expect(await linkedAt(runId)()).toEqual(linkedBefore);
    expect(await linksOf(runId)).toEqual(before);

    // Another user's run is never queued.
    const stranger = await createGenUser(sql, { label: 'autolink-stranger' });
    expect(await m.links.linkWhenRunEnds(stranger.id, { runId })).toBe(false);
  }, 120_000);
});
