import createClient from 'openapi-fetch';
import type { paths } from './postforge-api';

// A whole API flow with a typed client: the types are generated from the API's OpenAPI document
// (`npx openapi-typescript http://localhost:3000/api/openapi.json -o examples/postforge-api.d.ts`),
// so a wrong path, field or answer shape is a compile error, not a surprise at run time.
//
//   PF=http://localhost:3000 TOKEN=pf_live_… SITE_URL=https://blog.example.com WP_USER=editor \
//   WP_APP_PASSWORD='abcd efgh …' npx tsx examples/api-flow.ts

export type FlowOptions = {
  baseUrl: string;
  /** A personal API token (Settings → Manage API tokens). */
  token: string;
  site: { siteUrl: string; username: string; appPassword: string };
  topics: string[];
  /** How long to wait for the run and the post (ms). */
  timeoutMs?: number;
  log?: (line: string) => void;
};

export type FlowResult = { jobId: string; replayed: boolean; resultIds: string[]; postId: number; link: string | null };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function apiFlow(options: FlowOptions): Promise<FlowResult> {
  const log = options.log ?? (() => {});
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const api = createClient<paths>({ baseUrl: options.baseUrl, headers: { Authorization: `Bearer ${options.token}` } });
  const fail = (step: string, error: unknown): never => {
    throw new Error(`${step}: ${JSON.stringify(error)}`);
  };

  // 1. A WordPress site to publish to (checked and saved by the server).
  const site = await api.POST('/api/wordpress/sites', { body: { ...options.site, isDefault: true } });
  if (!site.data) fail('add site', site.error);
  const siteId = (site.data as { site: { id: number } }).site.id;
  log(`site ${siteId}`);

  // 2. Start a run; the same Idempotency-Key sent again answers the same run (a safe retry).
  const key = `api-flow-${Date.now()}`;
  const body = { prompts: options.topics.join('\n'), model: 'openai/gpt-4o-mini-search-preview' as const };
  const started = await api.POST('/api/generate/text', { params: { header: { 'Idempotency-Key': key } }, body });
  if (!started.data) fail('start', started.error);
  const again = await api.POST('/api/generate/text', { params: { header: { 'Idempotency-Key': key } }, body });
  const jobId = started.data!.jobId;
  const replayed = again.response.headers.get('Idempotent-Replayed') === 'true' && again.data?.jobId === jobId;
  log(`run ${jobId} (${started.data!.total} topics, ${started.data!.credits} credits; retry replayed: ${replayed})`);

  // 3. Poll the run until nothing is processing (or subscribe to the run.completed webhook).
  for (;;) {
    const job = await api.GET('/api/jobs/{id}', { params: { path: { id: jobId } } });
    if (!job.data) fail('poll', job.error);
    if (job.data!.status !== 'processing') break;
    if (Date.now() > deadline) fail('poll', 'timed out');
    await sleep(500);
  }

  // 4. The run's results.
  const list = await api.GET('/api/results', { params: { query: { type: 'text', limit: 100 } } });
  if (!list.data) fail('results', list.error);
  const ours = list.data!.results.filter((r) => (r as { runId?: string }).runId === jobId);
  const done = ours.find((r) => r.status === 'completed');
  if (!done) fail('results', 'no completed result');
  log(`${ours.length} results, publishing "${done!.title}"`);

  // 5. Publish one as a post (also idempotent), then follow the publication until it ends.
  const published = await api.POST('/api/wordpress/publish', {
    params: { header: { 'Idempotency-Key': `${key}-publish` } },
    body: { siteId, resultId: done!.id, title: done!.title ?? done!.prompt, content: done!.content ?? '', status: 'publish' },
  });
  if (!published.data) fail('publish', published.error);
  const publicationId = (published.data as { publicationId: string }).publicationId;
  for (;;) {
    const seen = await api.GET('/api/wordpress/scheduled/{id}', { params: { path: { id: publicationId } } });
    if (!seen.data) fail('publication', seen.error);
    const publication = (seen.data as { publication: { status: string; postId: number | null; link: string | null } }).publication;
    if (publication.status === 'published') {
      log(`published: ${publication.link}`);
      return { jobId, replayed, resultIds: ours.map((r) => r.id), postId: publication.postId!, link: publication.link };
    }
    if (publication.status !== 'queued') fail('publication', publication);
    if (Date.now() > deadline) fail('publication', 'timed out');
    await sleep(500);
  }
}

// Run from the command line with the environment above.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const env = (name: string) => process.env[name] ?? (console.error(`${name} is not set`), process.exit(2));
  apiFlow({
    baseUrl: env('PF'),
    token: env('TOKEN'),
    site: { siteUrl: env('SITE_URL'), username: env('WP_USER'), appPassword: env('WP_APP_PASSWORD') },
    topics: ['How to brew pour-over coffee'],
    log: (line) => console.log(line),
  }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
