import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../../db/client';
import { TestClient, type TestApp } from '../support/app-server';
import { startBillingApp, closeBillingApp } from '../support/billing';
import { uploadFile } from '../support/input-tools';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';
import { startReplicateServer, type ReplicateServer } from '../support/replicate-server';
import type { TestStripe } from '../support/stripe-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';
import { waitForRun } from '../support/generation';

// The API contract the product was specified with: every call it lists, with the payload it
// describes and the original form's default values (e.g. the reading level '8th & 9th grade, easily
// understood'), sent by a signed-in browser to the compiled app with real peers (an OpenAI-compatible
// server, Replicate, Stripe, WordPress), must succeed. A route that refuses that payload fails here,
// so clients written against the original contract keep working.

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_HOSTS = 'true';
});

let openai: OpenAiServer;
let replicate: ReplicateServer;
let stripe: TestStripe;
let app: TestApp;
let wp: WordPressSite;
let titleCount = 1;

beforeAll(async () => {
  openai = await startOpenAiServer({
    latencyMs: 5,
    script: (req) => {
      // Title generation answers JSON, one title per keyword.
      if (req.messages.some((m) => m.role === 'system' && m.content.includes('blog post titles'))) {
        return { kind: 'ok', content: JSON.stringify({ titles: Array.from({ length: titleCount }, (_, i) => `Title ${i + 1}`) }) };
      }
      // One topic fails once for good (a 400 is not retried), so "retry" has something to retry.
      if (req.topic === 'doomed topic' && req.attempt === 1) return { kind: 'status', status: 400, message: 'bad request' };
      return undefined;
    },
  });
  replicate = await startReplicateServer({ latencyMs: 5 });
  Object.assign(process.env, {
    OPENROUTER_BASE_URL: openai.url,
    REPLICATE_BASE_URL: replicate.url,
    GENERATION_PROVIDER_ATTEMPTS: '1',
  });
  [{ stripe, app }, wp] = await Promise.all([startBillingApp(), startWordPress()]);
}, 240_000);

afterAll(async () => {
  await closeBillingApp(app, stripe);
  await Promise.all([openai?.close(), replicate?.close(), wp?.stop()]);
});

/** The original form's defaults for text, in its own words. */
const CONTRACT_TEXT = {
  model: 'openai/gpt-4o-mini-search-preview',
  language: 'English (US)',
  toneOfVoice: 'Neutral',
  pointOfView: 'Third person',
  articleType: 'General',
  readingLevel: '8th & 9th grade, easily understood',
  contentLength: 'Medium',
  writingStyle: 'Standard',
  includeIntro: true,
  includeOutro: true,
  includeHeadings: true,
  includeBulletPoints: true,
  includeQA: true,
  includeKeyTakeaways: true,
  embedImage: false,
};
const CONTRACT_IMAGE = {
  model: 'black-forest-labs/flux-schnell',
  aspectRatio: '16:9',
  stylePreset: 'photographic',
  guidanceScale: 7,
  numOutputs: 1,
};

async function ok(res: Response | Promise<Response>, call: string): Promise<Record<string, unknown>> {
  const r = await res;
  const text = await r.text();
  expect(r.status, `${call} → ${r.status} ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
  expect(r.status, `${call} → ${r.status} ${text.slice(0, 300)}`).toBeLessThan(300);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function send(c: TestClient, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return c.request(path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function linkFromMail(to: string): Promise<URL> {
  const until = Date.now() + 60_000;
  for (;;) {
    const [row] = await sql<{ textBody: string }[]>`
      SELECT text_body AS "textBody" FROM email_outbox WHERE to_address = ${to} ORDER BY created_at DESC LIMIT 1`;
    const link = row?.textBody.match(/https?:\/\/\S+reset-password\S+/)?.[0];
    if (link) return new URL(link);
    if (Date.now() > until) throw new Error(`no e-mail with a link to ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the original API contract, every call with its own payload and defaults', () => {
  it('succeeds, signed in as a browser would be', { timeout: 240_000 }, async () => {
    const c = new TestClient(app.url, { 'accept-language': 'en', 'x-forwarded-for': `198.51.100.${crypto.randomInt(1, 250)}` });
    const email = `contract-${crypto.randomUUID()}@example.com`;
    const password = 'contract-password';

    // Authentication and user.
    await ok(c.postJson('/api/register', { name: 'Contract Tester', email }), 'POST /api/register');
    const setLink = await linkFromMail(email);
    await ok(
      c.postJson('/api/reset-password', { password, confirmPassword: password, token: setLink.searchParams.get('token'), email }),
      'POST /api/reset-password',
    );
    const me = await ok(c.postJson('/api/login', { email, password }), 'POST /api/login');
    expect(me.name).toBe('Contract Tester');
    expect((await ok(c.get('/api/user'), 'GET /api/user')).name).toBe('Contract Tester');
    await ok(c.postJson('/api/forgot-password', { email }), 'POST /api/forgot-password');

    // Subscription: Pro, then a top-up (its return page calls manual-upgrade, then activate).
    await ok(c.get('/api/subscription'), 'GET /api/subscription');
    const plans = (await ok(c.get('/api/subscription/plans'), 'GET /api/subscription/plans')) as {
      plans: { id: string; priceId: string | null }[];
      topUpPlans: { priceId: string | null }[];
    };
    const pro = plans.plans.find((p) => p.id === 'pro')!.priceId!;
    const checkout = await ok(
      c.postJson('/api/subscription/checkout', { priceId: pro, language: 'en' }),
      'POST /api/subscription/checkout',
    );
    expect(checkout.url).toBeTruthy();
    const proReturn = await stripe.pay(checkout.sessionId as string);
    await ok(
      send(c, 'POST', '/api/subscription/manual-upgrade', undefined, { referer: proReturn }),
      'POST /api/subscription/manual-upgrade',
    );
    await ok(send(c, 'POST', '/api/subscription/activate', undefined, { referer: proReturn }), 'POST /api/subscription/activate');
    const topUp = await ok(
      c.postJson('/api/subscription/checkout', { priceId: plans.topUpPlans[0]!.priceId, language: 'en' }),
      'POST /api/subscription/checkout (top-up)',
    );
    const topUpReturn = await stripe.pay(topUp.sessionId as string);
    await ok(
      send(c, 'POST', '/api/subscription/manual-upgrade', { isTopUp: true, creditAmount: '100' }, { referer: topUpReturn }),
      'POST /api/subscription/manual-upgrade (top-up)',
    );

    // Settings.
    await ok(c.get('/api/settings'), 'GET /api/settings');
    await ok(
      c.postJson('/api/settings', {
        openRouterApiKey: '',
        replicateApiKey: '',
        defaultTextModel: CONTRACT_TEXT.model,
        defaultImageModel: CONTRACT_IMAGE.model,
        darkMode: false,
        autoSave: true,
        aspectRatio: '1:1',
        stylePreset: 'photographic',
        guidanceScale: 7,
        numOutputs: 1,
      }),
      'POST /api/settings',
    );
    await ok(c.postJson('/api/api-keys', { openRouterApiKey: 'sk-or-contract', replicateApiKey: 'r8-contract' }), 'POST /api/api-keys');

    // Templates: settings also spread at the top level.
    const textSettings = { ...CONTRACT_TEXT, temperature: 0.7, maxTokens: 2048 };
    const created = (await ok(
      c.postJson('/api/templates', { name: 'My Template', type: 'text', settings: textSettings, ...textSettings }),
      'POST /api/templates',
    )) as { template: { id: string } };
    await ok(
      c.postJson('/api/templates', { name: 'Images', type: 'image', settings: CONTRACT_IMAGE, ...CONTRACT_IMAGE }),
      'POST /api/templates (image)',
    );
    for (const path of ['/api/templates', '/api/templates?type=text', '/api/templates?type=image']) await ok(c.get(path), `GET ${path}`);
    await ok(send(c, 'PUT', `/api/templates/${created.template.id}`, { name: 'Renamed Template' }), 'PUT /api/templates/{id}');
    await ok(send(c, 'DELETE', `/api/templates/${created.template.id}`), 'DELETE /api/templates/{id}');

    // Generation.
    const title = await ok(
      c.postJson('/api/generate-blog-title', { keywords: 'winter soup', multipleKeywords: false, ...CONTRACT_TEXT }),
      'POST /api/generate-blog-title',
    );
    expect(title.title).toBeTruthy();
    titleCount = 2;
    const titles = await ok(
      c.postJson('/api/generate-blog-title', { keywords: 'winter soup\ngarden tools', multipleKeywords: true, ...CONTRACT_TEXT }),
      'POST /api/generate-blog-title (several)',
    );
    expect(titles.titles).toHaveLength(2);
    const csv = await ok(uploadFile(c, '/api/upload-csv', 'topic\nwinter soup\ndoomed topic\n'), 'POST /api/upload-csv');
    expect(csv.prompts).toEqual(['winter soup', 'doomed topic']);
    const text = await ok(
      c.postJson('/api/generate/text', {
        type: 'text',
        prompts: csv.prompts,
        temperature: 0.7,
        maxTokens: 1700,
        includeSourceCitations: false,
        ...CONTRACT_TEXT,
      }),
      'POST /api/generate/text',
    );
    const image = await ok(
      c.postJson('/api/generate/image', { type: 'image', prompts: ['a bowl of soup'], ...CONTRACT_IMAGE }),
      'POST /api/generate/image',
    );
    await ok(c.get(`/api/jobs/${text.jobId as string}`), 'GET /api/jobs/{id}');
    await ok(
      send(c, 'PATCH', '/api/user/settings', {
        lastTextLanguage: CONTRACT_TEXT.language,
        lastTextReadingLevel: CONTRACT_TEXT.readingLevel,
        lastTextPointOfView: CONTRACT_TEXT.pointOfView,
        lastImageAspectRatio: CONTRACT_IMAGE.aspectRatio,
      }),
      'PATCH /api/user/settings',
    );
    const [last] = await sql<{ level: string }[]>`
      SELECT s.last_used->>'lastTextReadingLevel' AS level FROM user_settings s JOIN users u ON u.id = s.user_id WHERE u.email = ${email}`;
    expect(last?.level).toBe('8th & 9th grade');

    // Results.
    await waitForRun(sql, text.jobId as string);
    await waitForRun(sql, image.jobId as string);
    const listed = (await ok(c.get('/api/results?page=1&limit=10&type=all&search='), 'GET /api/results')) as {
      results: { id: string; prompt: string; status: string; type: string }[];
      pagination: { totalPages: number; total: number };
    };
    expect(listed.pagination.total).toBe(3);
    const soup = listed.results.find((r) => r.prompt === 'winter soup')!;
    const doomed = listed.results.find((r) => r.prompt === 'doomed topic')!;
    expect(doomed.status).toBe('failed');
    await ok(send(c, 'PUT', `/api/results/${soup.id}/content`, { content: '<p>Edited soup</p>' }), 'PUT /api/results/{id}/content');
    await ok(send(c, 'POST', `/api/results/${doomed.id}/retry`), 'POST /api/results/{id}/retry');

    // Internal links (DELETE /api/results/{id}/links/{linkId} in internal-links-api.test.ts).
    const runLinks = await ok(c.get(`/api/jobs/${text.jobId as string}/links`), 'GET /api/jobs/{id}/links');
    expect(runLinks.settings).toMatchObject({ enabled: true, count: 3 });
    await ok(
      send(c, 'PUT', `/api/jobs/${text.jobId as string}/links`, { enabled: true, count: 3, sitePosts: true, siteId: null }),
      'PUT /api/jobs/{id}/links',
    );
    await ok(c.get(`/api/results/${soup.id}/links`), 'GET /api/results/{id}/links');
    await ok(send(c, 'POST', `/api/results/${soup.id}/links`), 'POST /api/results/{id}/links');

    // WordPress.
    const site = { siteUrl: wp.url, username: wp.username, appPassword: wp.appPassword };
    const check = await ok(c.postJson('/api/wordpress/test-connection', site), 'POST /api/wordpress/test-connection');
    expect(check.success).toBe(true);
    const added = (await ok(
      c.postJson('/api/wordpress/sites', { ...site, isDefault: false, siteName: 'Contract blog' }),
      'POST /api/wordpress/sites',
    )) as { site?: { id: number | string }; id?: number | string };
    const siteId = Number(added.site?.id ?? added.id);
    expect(siteId).toBeGreaterThan(0);
    await ok(
      send(c, 'PUT', `/api/wordpress/sites/${siteId}`, { ...site, isDefault: false, siteName: 'Renamed blog', id: siteId }),
      'PUT /api/wordpress/sites/{id}',
    );
    await ok(send(c, 'PUT', `/api/wordpress/sites/${siteId}/default`), 'PUT /api/wordpress/sites/{id}/default');
    await ok(c.get('/api/wordpress/sites'), 'GET /api/wordpress/sites');
    const categories = await ok(c.get(`/api/wordpress/sites/${siteId}/categories`), 'GET /api/wordpress/sites/{id}/categories');
    expect(Array.isArray(categories.categories)).toBe(true);
    await ok(
      c.postJson('/api/wordpress/publish', {
        siteId,
        title: 'Winter soup',
        content: '<p>Edited soup</p>',
        excerpt: '',
        categoryIds: [],
        status: 'draft',
        featured: false,
      }),
      'POST /api/wordpress/publish',
    );
    await ok(c.get('/api/wordpress/scheduled'), 'GET /api/wordpress/scheduled');
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const uploaded = await ok(
      c.postJson('/api/wordpress/upload-image', { siteId, imageBase64: png, filename: 'pixel.png', mimeType: 'image/png' }),
      'POST /api/wordpress/upload-image',
    );
    expect(uploaded.success).toBe(true);
    expect(uploaded.url).toBeTruthy();

    // The rest of Results, then the site, the subscription and the session.
    await ok(send(c, 'DELETE', `/api/results/${soup.id}`), 'DELETE /api/results/{id}');
    await ok(send(c, 'DELETE', '/api/results'), 'DELETE /api/results');
    await ok(send(c, 'DELETE', `/api/wordpress/sites/${siteId}`), 'DELETE /api/wordpress/sites/{id}');
    await ok(send(c, 'POST', '/api/subscription/cancel'), 'POST /api/subscription/cancel');
    await ok(send(c, 'POST', '/api/logout'), 'POST /api/logout');
    expect((await c.get('/api/user')).status).toBe(401);
  });
});
