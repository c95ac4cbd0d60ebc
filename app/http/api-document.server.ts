import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z, type ZodTypeAny } from 'zod';
import {
  imageGenerationSchema,
  resultContentSchema,
  resultDownloadQuerySchema,
  resultsApiQuerySchema,
  resultsFilterQuerySchema,
  textGenerationSchema,
} from '~/utils/generation-schema';
import { titleRequestSchema } from '~/utils/title-request';
import { planSchema, writePlansSchema } from '~/utils/plan-schema';
import { ADDABLE_SECTIONS } from '~/utils/quality/fixes';
import { resultFixSchema } from '~/utils/result-fix-schema';
import { ADD_SECTION_CREDITS, fixKinds } from '~/catalogue';
import { runLinkSettingsApiSchema } from '~/utils/link-schemas';
import { WEBHOOK_TEST_EVENT, webhookEventTypes } from '~/utils/webhook-events';
import { GENERATION_FAILURES } from '~/utils/generation-errors';
import { WP_ERROR_CODES, WP_PROBLEMS } from '~/utils/wordpress-errors';
import {
  bulkPublishSchema,
  termChoicesSchema,
  publishSchema,
  rescheduleSchema,
  siteSchema,
  siteUpdateSchema,
  testConnectionSchema,
  uploadImageSchema,
} from '~/utils/wordpress-schemas';

// The OpenAPI document of the JSON API, generated from the very zod schemas the routes
// validate with: each operation names the schema's module and export (a test checks that the route
// imports it and that the document's request schema is what that schema generates). Routes that are
// not part of the scriptable API are listed in `excludedRoutes` with the reason.

extendZodWithOpenApi(z);

/** Translation keys stand in for messages: the document needs the shapes, not the words. */
const keys = (key: string) => key;

export type SchemaSource = { module: string; name: string };

export type ApiOperation = {
  /** The route module under app/routes (without extension). */
  route: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  tag: string;
  summary: string;
  description?: string;
  body?: { schema: ZodTypeAny; source: SchemaSource; example?: Record<string, unknown> };
  query?: { schema: z.AnyZodObject; source: SchemaSource; example?: Record<string, unknown> };
  response?: { status?: number; schema?: ZodTypeAny; description: string; contentType?: string; contentTypes?: string[] };
  /** Other answers of the same shape as `response` (a publish's 202 and 502), by status. */
  alsoAnswers?: Record<number, string>;
  /** Takes an Idempotency-Key header: a replay answers the first answer, marked Idempotent-Replayed. */
  idempotent?: boolean;
  /** The refusals this operation answers beyond the ones every operation may (see `refusals`). */
  refuses?: RefusalStatus[];
};

/** Refusals only some operations answer: 402 credits, 403 Pro, 409 conflict, 422 unprocessable, 502 site. */
export type RefusalStatus = 402 | 403 | 409 | 422 | 502;

// ---------------------------------------------------------------------------------------------
// Answers (what the routes return; the requests are the routes' own schemas)

const diagnosis = z
  .object({ code: z.string(), hint: z.string() })
  .openapi('Diagnosis', { description: "Our reading of a WordPress site's failure: a code and a hint in the request language." });

const error = z
  .object({
    error: z.string().openapi({ description: 'What went wrong, in the request language.' }),
    fields: z
      .record(z.array(z.string()))
      .optional()
      .openapi({ description: "On 400: each field's messages, by the field's name (`_form` for the body as a whole)." }),
    code: z.string().optional().openapi({ description: 'A stable code where one is given (e.g. `session_required`).' }),
    diagnosis: diagnosis.optional(),
  })
  .openapi('Error', { description: 'Every failure: a message in the request language, and per-field messages on 400.' });

const existingPublication = z
  .object({
    publicationId: z.string(),
    resultId: z.string().nullable().optional(),
    status: z.enum(['queued', 'published', 'failed', 'canceled']),
    postId: z.number().int().nullable(),
    link: z.string().nullable(),
    publishAt: z.string().nullable().optional(),
    publishedAt: z.string().nullable().optional(),
  })
  .openapi('ExistingPublication', { description: 'A publication of the same result to the same site, made earlier.' });

const conflict = z
  .object({
    error: z.string(),
    existing: z
      .union([existingPublication, z.array(existingPublication)])
      .optional()
      .openapi({
        description:
          'When the result is already on the site: the earlier publication (an array for a bulk publish); send `onExisting` `update` or `new` to go on.',
      }),
  })
  .openapi('Conflict', { description: 'The request conflicts with the current state; retrying it unchanged will not help.' });

const started = z.object({ jobId: z.string().uuid(), total: z.number().int(), credits: z.number().int() }).openapi('StartedRun');

const job = z
  .object({
    id: z.string().uuid(),
    type: z.enum(['text', 'image']),
    model: z.string(),
    totalPrompts: z.number().int(),
    completedPrompts: z.number().int(),
    failedPrompts: z.number().int(),
    canceledPrompts: z.number().int(),
    processingPrompts: z.number().int(),
    plannedPrompts: z.number().int().openapi({ description: 'Plans waiting for review (plan-first runs); their credits are still held.' }),
    refundedCredits: z.number().int(),
    status: z.enum(['processing', 'planned', 'completed', 'canceled']).openapi({
      description: '`planned` once nothing is processing and some plans wait for review (write or drop them).',
    }),
    createdAt: z.string(),
  })
  .openapi('Job');

const planBody = z
  .object({
    title: z.string(),
    metaDescription: z.string(),
    sections: z.array(z.object({ level: z.number().int(), heading: z.string(), intent: z.string() })),
    faq: z.array(z.string()),
  })
  .openapi('Plan');

const planView = z
  .object({
    id: z.string().uuid(),
    runId: z.string().uuid(),
    position: z.number().int(),
    prompt: z.string(),
    status: z.enum(['processing', 'planned', 'completed', 'failed', 'canceled']),
    phase: z
      .enum(['plan', 'write'])
      .openapi({ description: "What the item's next or current job does: make the plan, or write the post." }),
    plan: planBody.nullable().openapi({ description: 'Null until the first plan is made.' }),
    research: z
      .object({
        status: z.enum(['found', 'empty', 'failed']).openapi({
          description:
            '`found`: the sources below; `empty`: the search found nothing usable; `failed`: the search API could not be used, so the plan was made without research.',
        }),
        sources: z.array(z.object({ url: z.string().url(), title: z.string() })).openapi({
          description: 'The search results the plan was made from; the written post lists them under "Sources" at its end.',
        }),
      })
      .nullable()
      .openapi({
        description: 'What research for the plan found; null when the operator configured no search API (or before the first plan).',
      }),
    credits: z.number().int().openapi({ description: 'The credits held for this post: charged once when written, released when dropped.' }),
    errorCode: z
      .enum(GENERATION_FAILURES)
      .nullable()
      .openapi({ enum: [...GENERATION_FAILURES, null] }),
  })
  .openapi('PlanView');

const qualityCheck = z
  .object({
    id: z.enum(['length', 'sections', 'keyword', 'reading_level', 'language', 'duplicates', 'repetition']),
    status: z.enum(['pass', 'warn', 'fail', 'not_measured']),
    params: z.record(z.unknown()).openapi({
      description:
        'The measured figures and what they were held against: e.g. `measured`, `target` and `unit` (`words`, or `characters` for Chinese and Japanese) for length; `missing` and `unwanted` sections; `found` and `missing` keyword places; `grade` and `ease` (Flesch-Kincaid, English only); `detected` (ISO 639-3); `similarity` and `closest` for near-duplicates; `repeatedSentences`, `repeatedParagraphs` and `fillerPerThousand` for repetition.',
    }),
  })
  .openapi('QualityCheck');

const qualityReport = z
  .object({
    status: z.enum(['pass', 'warn', 'fail']).openapi({ description: 'The worst of its checks (a check not measured counts as passed).' }),
    checks: z.array(qualityCheck),
    checkedAt: z.string(),
  })
  .openapi('QualityReport', { description: "A completed text result's quality report, computed when it completed and after each edit." });

const resultFix = z
  .object({
    id: z.string().uuid(),
    kind: z.enum(fixKinds),
    section: z
      .enum(ADDABLE_SECTIONS)
      .nullable()
      .openapi({ enum: [...ADDABLE_SECTIONS, null], description: 'The section an `add_section` fix adds; null for the others.' }),
    status: z.enum(['processing', 'completed', 'failed']),
    credits: z.number().int().openapi({ description: 'Held while it runs, spent when it completes; a failed fix costs nothing.' }),
    errorCode: z.string().nullable().openapi({
      description:
        'Why it failed: a generation failure code (`provider_timeout`, ...) or `result_changed` (the post was edited meanwhile).',
    }),
    error: z.string().nullable().openapi({ description: "Why it failed, in the request's language; null unless failed." }),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('ResultFix', { description: "A one-click fix of a completed text post: its post's latest." });

const fixStarted = z
  .object({
    success: z.literal(true),
    fixId: z.string().uuid(),
    credits: z.number().int(),
    result: z.object({}).passthrough().openapi({ description: 'The result, its `fix` the one just queued.' }),
  })
  .openapi('FixStarted');

const result = z
  .object({
    id: z.string().uuid(),
    type: z.enum(['text', 'image']),
    prompt: z.string(),
    title: z.string().nullable(),
    content: z.string().nullable(),
    status: z.enum(['processing', 'planned', 'completed', 'failed', 'canceled']),
    error: z.string().nullable().openapi({
      description: "Why it failed, in the request's language (the provider's own words quoted after it); null unless failed.",
    }),
    // The enum lists null itself: a nullable enum's `type` admits null but its `enum` would not.
    errorCode: z
      .enum(GENERATION_FAILURES)
      .nullable()
      .openapi({
        enum: [...GENERATION_FAILURES, null],
        description:
          'Why it failed, as a code; null unless failed, and for a failure stored before codes (`error` then says "Generation failed").',
      }),
    model: z.string(),
    quality: qualityReport
      .nullable()
      .openapi({ description: 'Null for images, results not completed, and results completed before reports.' }),
    approvedAt: z.string().nullable().openapi({
      description: 'When the owner approved it: a publish that holds posts that do not pass lets it through. Null: not approved.',
    }),
    fix: resultFix
      .nullable()
      .optional()
      .openapi({ description: 'Its latest one-click fix (running, done or failed); null when none was asked for.' }),
    createdAt: z.string(),
  })
  .passthrough()
  .openapi('Result');

const results = z
  .object({
    results: z.array(result),
    pagination: z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() }),
  })
  .openapi('ResultPage');

const resultLink = z
  .object({
    id: z.string().uuid(),
    resultId: z.string().uuid(),
    position: z.number().int(),
    targetKey: z.string().openapi({ description: '`result:<id>` (a post of the run) or `site:<WordPress post id>`.' }),
    targetResultId: z.string().uuid().nullable(),
    targetUrl: z.string().nullable().openapi({ description: 'Absolute URL when known; null for a run with no site (see targetSlug).' }),
    targetSlug: z.string().nullable().openapi({ description: "The planned slug of a run's post (a relative `/slug/`)." }),
    targetTitle: z.string(),
    anchor: z.string().openapi({ description: 'The words of the sentence the link stands on.' }),
    sentence: z.string(),
    score: z.number(),
    removedAt: z.string().nullable().openapi({ description: 'Removed by the user: never proposed again, never published.' }),
  })
  .openapi('ResultLink');

const runLinkSettings = z
  .object({
    enabled: z.boolean(),
    count: z.number().int(),
    sitePosts: z.boolean(),
    siteId: z.number().int().nullable(),
    linkedAt: z.string().nullable(),
  })
  .openapi('RunLinkSettings');

const runLinks = z
  .object({
    runId: z.string().uuid(),
    settings: runLinkSettings,
    results: z.array(
      z.object({
        resultId: z.string().uuid(),
        title: z.string(),
        links: z.array(resultLink),
      }),
    ),
  })
  .openapi('RunLinks');

const resultLinks = z.object({ resultId: z.string().uuid(), links: z.array(resultLink) }).openapi('ResultLinks');

const anyObject = (name: string) => z.object({}).passthrough().openapi(name);

/** The envelope every webhook request carries (signed per Standard Webhooks). */
export const webhookEnvelope = z
  .object({
    type: z.enum([...webhookEventTypes, WEBHOOK_TEST_EVENT]),
    timestamp: z.string().datetime(),
    data: z.record(z.unknown()),
  })
  .openapi('WebhookEvent');

/** result.failed: which result failed and why, as a code to branch on beside an English text for logs. */
export const resultFailedEvent = z
  .object({
    type: z.literal('result.failed'),
    timestamp: z.string().datetime(),
    data: z.object({
      resultId: z.string().uuid(),
      runId: z.string().uuid(),
      status: z.literal('failed'),
      attempt: z.number().int(),
      errorCode: z.enum([...GENERATION_FAILURES, 'unknown']).openapi({
        description: 'Why it failed, as a code (the `errorCode` of GET /api/results/{id}; `unknown` for a failure stored before codes).',
      }),
      error: z.string().nullable().openapi({
        description: "Why it failed in English, for your logs; show your users the code's meaning or the result's `error` instead.",
      }),
    }),
  })
  .openapi('ResultFailedEvent');

/** publication.failed: which publication failed and why, as a code to branch on beside an English text for logs. */
export const publicationFailedEvent = z
  .object({
    type: z.literal('publication.failed'),
    timestamp: z.string().datetime(),
    data: z.object({
      publicationId: z.string().uuid(),
      resultId: z.string().uuid().nullable(),
      status: z.literal('failed'),
      errorCode: z.enum([...WP_ERROR_CODES, ...WP_PROBLEMS, 'unknown']).openapi({
        description:
          "Why it failed, as a code: WordPress's own error code when it is one we explain, else our diagnosis of the call (`unknown` when neither).",
      }),
      error: z.string().nullable().openapi({
        description: "Why it failed in English (the site's own words when it answered), for your logs.",
      }),
    }),
  })
  .openapi('PublicationFailedEvent');

/** result.flagged: a post a gated publish would hold, with the summary of its quality report. */
export const resultFlaggedEvent = z
  .object({
    type: z.literal('result.flagged'),
    timestamp: z.string().datetime(),
    data: z.object({
      resultId: z.string().uuid(),
      runId: z.string().uuid(),
      attempt: z.number().int(),
      cause: z.enum(['completed', 'edited']).openapi({
        description:
          '`completed`: the post completed with a failing report (once per completion). `edited`: an edit turned a report that did not fail into one that does (a post that stays failing is not sent again; an approved post is not flagged).',
      }),
      quality: z.object({
        status: z.literal('fail'),
        failed: z.array(qualityCheck.shape.id).openapi({ description: 'The checks that failed.' }),
        warned: z.array(qualityCheck.shape.id).openapi({ description: 'The checks that warned.' }),
        checks: z.array(qualityCheck).openapi({ description: 'The failed and warned checks with their figures.' }),
        checkedAt: z.string(),
      }),
    }),
  })
  .openapi('ResultFlaggedEvent');

/** publication.published: our record's end, with the post's own status on the site (a draft ends here too). */
export const publicationPublishedEvent = z
  .object({
    type: z.literal('publication.published'),
    timestamp: z.string().datetime(),
    data: z.object({
      publicationId: z.string().uuid(),
      resultId: z.string().uuid().nullable(),
      status: z.literal('published'),
      postId: z.number().int().nullable().openapi({ description: "The post's id on the site; null for images sent to the media library." }),
      link: z.string().nullable().openapi({ description: "The post's address; for a draft or pending post, its wp-admin edit link." }),
      postStatus: z
        .enum(['publish', 'private', 'draft', 'pending'])
        .nullable()
        .openapi({
          enum: ['publish', 'private', 'draft', 'pending', null],
          description:
            "The post's status on the site as read back: `publish` (live), `private`, or `draft` / `pending` (sent but not live). Null for images sent to the media library.",
        }),
    }),
  })
  .openapi('PublicationPublishedEvent');

/** The schema of a webhook event's request: its own where its data is described, else the envelope. */
const eventSchemas: Record<string, ZodTypeAny> = {
  'result.failed': resultFailedEvent,
  'result.flagged': resultFlaggedEvent,
  'publication.published': publicationPublishedEvent,
  'publication.failed': publicationFailedEvent,
};

// ---------------------------------------------------------------------------------------------
// Operations

const gen = (name: string) => ({ module: 'generation-schema', name });
const wp = (name: string) => ({ module: 'wordpress-schemas', name });

export const operations: ApiOperation[] = [
  {
    route: 'api.generate.text',
    method: 'post',
    refuses: [402, 403, 409, 422],
    path: '/api/generate/text',
    tag: 'Generation',
    summary: 'Start a run of blog posts (one per topic)',
    description:
      'Holds the credits of every item at once (all or none) and answers with the run id; poll GET /api/jobs/{id} or subscribe to run.completed.',
    body: {
      schema: textGenerationSchema(keys),
      source: gen('textGenerationSchema'),
      example: { prompts: 'How to brew pour-over coffee\nBest hiking trails near Hong Kong', model: 'openai/gpt-4o-mini-search-preview' },
    },
    response: { schema: started, description: 'The run started.' },
    idempotent: true,
  },
  {
    route: 'api.generate.image',
    method: 'post',
    refuses: [402, 403, 409, 422],
    path: '/api/generate/image',
    tag: 'Generation',
    summary: 'Start a run of images (one per prompt)',
    body: {
      schema: imageGenerationSchema(keys),
      source: gen('imageGenerationSchema'),
      example: { prompts: ['A red bicycle against a white wall'], model: 'black-forest-labs/flux-schnell', aspectRatio: '16:9' },
    },
    response: { schema: started, description: 'The run started.' },
    idempotent: true,
  },
  {
    route: 'api.generate-blog-title',
    method: 'post',
    path: '/api/generate-blog-title',
    tag: 'Generation',
    summary: 'Suggest blog titles for keywords',
    body: {
      schema: titleRequestSchema(keys),
      source: { module: 'title-request', name: 'titleRequestSchema' },
      example: { keywords: 'pour-over coffee\ncold brew', multipleKeywords: true },
    },
    response: { schema: anyObject('Titles'), description: '`title` (one keyword) or `titles` (matched to the keywords by position).' },
    refuses: [502],
  },
  {
    route: 'api.jobs.$id',
    method: 'get',
    path: '/api/jobs/{id}',
    tag: 'Generation',
    summary: "A run's progress",
    response: { schema: job, description: 'The counts by state; status is completed once nothing is processing.' },
  },
  {
    route: 'api.jobs.$id.cancel',
    method: 'post',
    path: '/api/jobs/{id}/cancel',
    tag: 'Generation',
    summary: "Cancel a run's waiting items (their credits are released)",
    response: { schema: job, description: 'The run after the cancel.' },
  },
  {
    route: 'api.jobs.$id.plans',
    method: 'get',
    path: '/api/jobs/{id}/plans',
    tag: 'Plans',
    summary: 'The plans of a plan-first run, in topic order',
    response: { schema: z.object({ plans: z.array(planView) }).openapi('RunPlans'), description: 'Every item of the run with its plan.' },
  },
  {
    route: 'api.jobs.$id.write',
    method: 'post',
    path: '/api/jobs/{id}/write',
    tag: 'Plans',
    summary: "Write a run's planned posts from their plans (the ones named, or all)",
    description:
      'Each post is written section by section from its approved plan and charged the credits its plan held, once. Send `{}` to write every planned post of the run.',
    body: { schema: writePlansSchema(), source: { module: 'plan-schema', name: 'writePlansSchema' }, example: {} },
    response: {
      schema: z.object({ queued: z.number().int(), job }).openapi('WriteStarted'),
      description: 'How many planned posts went to be written, and the run.',
    },
  },
  {
    route: 'api.results.$id.plan',
    method: 'get',
    path: '/api/results/{id}/plan',
    tag: 'Plans',
    summary: "A plan-first post's plan",
    response: { schema: planView, description: 'The plan and the state of its post.' },
  },
  {
    route: 'api.results.$id.plan',
    method: 'put',
    refuses: [409],
    path: '/api/results/{id}/plan',
    tag: 'Plans',
    summary: "Edit a planned post's plan (title, sections, FAQ questions, meta description)",
    description: 'Only while the post is planned (409 otherwise). The sections are written in the order given.',
    body: {
      schema: planSchema(keys),
      source: { module: 'plan-schema', name: 'planSchema' },
      example: {
        title: 'Pour-over coffee at home',
        metaDescription: 'Brew better pour-over coffee at home.',
        sections: [
          { level: 2, heading: 'What you need', intent: 'The kit and the beans.' },
          { level: 2, heading: 'The brew, step by step', intent: 'Ratio, grind, pour.' },
        ],
        faq: ['How fine should I grind?'],
      },
    },
    response: { schema: planView, description: 'The plan as stored.' },
  },
  {
    route: 'api.results.$id.plan',
    method: 'delete',
    refuses: [409],
    path: '/api/results/{id}/plan',
    tag: 'Plans',
    summary: 'Drop a planned post (its held credits are released)',
    response: { schema: planView, description: 'The post, now canceled.' },
  },
  {
    route: 'api.results.$id.plan.replan',
    method: 'post',
    refuses: [409],
    path: '/api/results/{id}/plan/replan',
    tag: 'Plans',
    summary: 'Plan a planned post again (its credits stay held; no extra charge)',
    response: { schema: planView, description: 'The post, planning again.' },
  },
  {
    route: 'api.results',
    method: 'get',
    path: '/api/results',
    tag: 'Results',
    summary: 'List results, newest first',
    query: {
      schema: resultsApiQuerySchema(keys),
      source: gen('resultsApiQuerySchema'),
      example: { page: '1', limit: '20', type: 'text', search: 'coffee' },
    },
    response: { schema: results, description: 'A page of results.' },
  },
  {
    route: 'api.results',
    method: 'delete',
    path: '/api/results',
    tag: 'Results',
    summary: 'Delete every result',
    response: { description: 'Deleted.' },
  },
  {
    route: 'api.results.$id',
    method: 'get',
    path: '/api/results/{id}',
    tag: 'Results',
    summary: 'One result',
    response: { schema: result, description: 'The result.' },
  },
  {
    route: 'api.results.$id',
    method: 'delete',
    path: '/api/results/{id}',
    tag: 'Results',
    summary: 'Delete a result',
    response: { description: 'Deleted.' },
  },
  {
    route: 'api.results.$id.content',
    method: 'put',
    refuses: [409],
    path: '/api/results/{id}/content',
    tag: 'Results',
    summary: "Replace a text result's HTML (sanitized)",
    body: {
      schema: resultContentSchema(keys),
      source: gen('resultContentSchema'),
      example: { content: '<h2>Edited</h2><p>New text.</p>', title: 'My edited title', seoTitle: 'Edited title | My blog' },
    },
    response: { schema: anyObject('SavedContent'), description: '`result.content` as stored.' },
  },
  {
    route: 'api.results.$id.retry',
    method: 'post',
    refuses: [402, 409],
    path: '/api/results/{id}/retry',
    tag: 'Results',
    summary: 'Generate a failed result again (holds its credits again)',
    response: { schema: anyObject('Retried'), description: 'Retry started.' },
  },
  {
    route: 'api.results.$id.fix',
    method: 'post',
    refuses: [402, 403, 409],
    path: '/api/results/{id}/fix',
    tag: 'Results',
    summary: 'Fix a completed text post: regenerate it, expand it to its length, or add a missing section',
    description: `Queued, and charged through the ledger like a generation: the credits are held now and spent only when the fix succeeds; a fix that fails costs nothing and leaves the post as it was. \`regenerate\` (any completed text post) writes the topic again with its run's settings and costs one post of its model (the post's image is kept); \`expand\` (offered when the length check is short) continues the existing text with new sections before its closing ones and costs the same; \`add_section\` (offered for each requested section the sections check finds missing: \`intro\`, \`keyTakeaways\`, \`faq\`, \`conclusion\`) writes only that section and puts it in its place, for ${ADD_SECTION_CREDITS} credit. The quality report is computed again when it completes; follow it on the result's \`fix\` (GET /api/results/{id}). Refusals: 409 \`not_fixable\` (not offered by the post's report), \`fix_running\` (one fix at a time per post), \`result_changed\` (\`basis\` is not the post's \`updatedAt\`), \`cost_changed\` (\`cost\` is not the price); 402 too few credits.`,
    body: {
      schema: resultFixSchema(keys),
      source: { module: 'result-fix-schema', name: 'resultFixSchema' },
      example: { kind: 'add_section', section: 'faq' },
    },
    response: { status: 202, schema: fixStarted, description: 'Queued: the fix, its credits (held) and the result.' },
    idempotent: true,
  },
  {
    route: 'api.results.$id.download',
    method: 'get',
    path: '/api/results/{id}/download',
    tag: 'Results',
    summary: 'Download a result as a file: a text result as .txt, an image (?index=0..3) as its file',
    query: { schema: resultDownloadQuerySchema(keys), source: gen('resultDownloadQuerySchema'), example: { index: '0' } },
    response: {
      description: 'The file: a text result as UTF-8 text, an image in its own format.',
      contentTypes: ['text/plain', 'image/*'],
    },
  },
  {
    route: 'api.results.download-all',
    method: 'get',
    path: '/api/results/download-all',
    tag: 'Results',
    summary: 'Download every completed result as a ZIP',
    query: { schema: resultsFilterQuerySchema(keys), source: gen('resultsFilterQuerySchema') },
    response: { description: 'A ZIP archive.', contentType: 'application/zip' },
  },
  {
    route: 'api.jobs.$id.links',
    method: 'get',
    path: '/api/jobs/{id}/links',
    tag: 'Internal links',
    summary: "A run's internal-link settings and every post's links",
    description: 'Links are chosen and woven without any provider call: they cost no credits.',
    response: { schema: runLinks, description: 'The settings and each text post with its links (removed ones marked).' },
  },
  {
    route: 'api.jobs.$id.links',
    method: 'put',
    refuses: [409],
    path: '/api/jobs/{id}/links',
    tag: 'Internal links',
    summary: "Change a run's link settings and link the whole run again",
    description:
      'Fields left out keep their values. `siteId` null: the default site. Removed links stay removed; linking off withdraws the rest.',
    body: {
      schema: runLinkSettingsApiSchema(keys),
      source: { module: 'link-schemas', name: 'runLinkSettingsApiSchema' },
      example: { enabled: true, count: 3, sitePosts: true, siteId: null },
    },
    response: {
      schema: runLinks.extend({ linked: z.number().int() }),
      description: '`linked` (links proposed) and the run as GET shows it.',
    },
  },
  {
    route: 'api.results.$id.links',
    method: 'get',
    path: '/api/results/{id}/links',
    tag: 'Internal links',
    summary: "A post's links",
    response: { schema: resultLinks, description: 'In order; removed ones last, marked.' },
  },
  {
    route: 'api.results.$id.links',
    method: 'post',
    refuses: [409],
    path: '/api/results/{id}/links',
    tag: 'Internal links',
    summary: "Link one post again, as its run's settings say",
    response: { schema: resultLinks.extend({ linked: z.number().int() }), description: "`linked` and the post's links." },
  },
  {
    route: 'api.results.$id.links.$linkId',
    method: 'delete',
    path: '/api/results/{id}/links/{linkId}',
    tag: 'Internal links',
    summary: "Remove one of a post's links (never proposed again, never published)",
    response: { description: 'Removed.' },
  },
  {
    route: 'api.user',
    method: 'get',
    path: '/api/user',
    tag: 'Account',
    summary: 'The current user and credits',
    response: { schema: anyObject('User'), description: 'The user.' },
  },
  {
    route: 'api.credits.history',
    method: 'get',
    path: '/api/credits/history',
    tag: 'Account',
    summary: 'Credit history (the ledger), newest first, by ?page',
    response: { schema: anyObject('CreditHistory'), description: 'A page of entries.' },
  },
  {
    route: 'api.wordpress.sites',
    method: 'get',
    path: '/api/wordpress/sites',
    tag: 'WordPress',
    summary: 'Your WordPress sites',
    response: { schema: anyObject('Sites'), description: '`sites`.' },
  },
  {
    route: 'api.wordpress.sites',
    method: 'post',
    refuses: [422],
    path: '/api/wordpress/sites',
    tag: 'WordPress',
    summary: 'Add a site (application password; the URL passes the SSRF guard)',
    body: {
      schema: siteSchema(keys),
      source: wp('siteSchema'),
      example: {
        siteUrl: 'https://blog.example.com',
        username: 'editor',
        appPassword: 'abcd efgh ijkl mnop qrst uvwx',
        isDefault: true,
        internalLinks: true,
      },
    },
    response: { status: 201, schema: anyObject('Site'), description: '`site`.' },
  },
  {
    route: 'api.wordpress.sites.$id',
    method: 'get',
    path: '/api/wordpress/sites/{id}',
    tag: 'WordPress',
    summary: 'One of your sites',
    response: { schema: anyObject('OneSite'), description: '`site`.' },
  },
  {
    route: 'api.wordpress.sites.$id',
    method: 'put',
    refuses: [422],
    path: '/api/wordpress/sites/{id}',
    tag: 'WordPress',
    summary: 'Change a site (a blank password keeps the stored one)',
    body: {
      schema: siteUpdateSchema(keys),
      source: wp('siteUpdateSchema'),
      example: { siteUrl: 'https://blog.example.com', username: 'editor' },
    },
    response: { schema: anyObject('SiteUpdated'), description: '`site`.' },
  },
  {
    route: 'api.wordpress.sites.$id',
    method: 'delete',
    path: '/api/wordpress/sites/{id}',
    tag: 'WordPress',
    summary: 'Remove a site',
    response: { description: 'Removed.' },
  },
  {
    route: 'api.wordpress.sites.$id.default',
    method: 'put',
    path: '/api/wordpress/sites/{id}/default',
    tag: 'WordPress',
    summary: 'Make a site the default',
    response: { description: 'Done.' },
  },
  {
    route: 'api.wordpress.sites.$id.categories',
    method: 'get',
    refuses: [502],
    path: '/api/wordpress/sites/{id}/categories',
    tag: 'WordPress',
    summary: "A site's categories",
    response: { schema: anyObject('Categories'), description: '`categories` (id, name).' },
  },
  {
    route: 'api.wordpress.sites.$id.posts',
    method: 'get',
    path: '/api/wordpress/sites/{id}/posts',
    tag: 'WordPress',
    summary: "A site's published posts as last read (for internal links)",
    response: { schema: anyObject('SitePosts'), description: '`refreshedAt`, `posts`.' },
  },
  {
    route: 'api.wordpress.sites.$id.posts',
    method: 'post',
    refuses: [502],
    path: '/api/wordpress/sites/{id}/posts',
    tag: 'WordPress',
    summary: "Read a site's published posts again",
    response: { schema: anyObject('SitePostsRefreshed'), description: '`refreshedAt`, `posts`.' },
  },
  {
    route: 'api.wordpress.test-connection',
    method: 'post',
    refuses: [422],
    path: '/api/wordpress/test-connection',
    tag: 'WordPress',
    summary: 'Check a site and its credentials',
    body: {
      schema: testConnectionSchema(keys),
      source: wp('testConnectionSchema'),
      example: { siteUrl: 'https://blog.example.com', username: 'editor', appPassword: 'abcd efgh ijkl mnop qrst uvwx' },
    },
    response: { schema: anyObject('ConnectionTest'), description: '`success`, `message`.' },
  },
  {
    route: 'api.wordpress.publish',
    method: 'post',
    refuses: [403, 409, 422, 502],
    path: '/api/wordpress/publish',
    tag: 'WordPress',
    summary: 'Publish a post now or at publishDate (queued; subscribe to publication.published)',
    description:
      "For an image result, `content` may be the result's own content (its image's address): the post then shows the image in a figure, uploaded to the site, as the publish page makes it; `target: media` puts the images in the media library only. `status: draft` or `pending` answers that status (not `published`) with the post's wp-admin edit link; `status: future` with a `publishDate` already past is refused (400); a later one is made on the site at once as a scheduled (`future`) post, which our watchdog publishes on time if WordPress has not.",
    body: {
      schema: publishSchema(keys),
      source: wp('publishSchema'),
      example: { siteId: 1, title: 'How to brew pour-over coffee', content: '<p>Start with fresh beans.</p>', status: 'publish' },
    },
    response: { schema: anyObject('Published'), description: '`success`, `postId` (once published), the publication.' },
    alsoAnswers: {
      202: "The site is slow: `queued`, the publication goes on in the background (GET /api/wordpress/scheduled/{id}). Or, with `qualityGate`, the post's quality report fails: `held: true`, `heldFor` (the failed checks) and `message`; it waits, queued, until the post is approved.",
      502: 'The site failed within the wait (refused the connection, did not resolve, answered an error): `success: false`, `error`, `errorCode`; the publication ended failed.',
    },
    idempotent: true,
  },
  {
    route: 'api.wordpress.term-choices',
    method: 'post',
    refuses: [403],
    path: '/api/wordpress/term-choices',
    tag: 'WordPress',
    summary: "Let the model choose each post's categories and tags among the site's own (for review)",
    description:
      "One call of the default text model per result (at most 50), included: no credits are charged. Names the model invents are dropped: only the site's existing categories and tags are proposed. Nothing is published: send the reviewed choices as `perPost` to POST /api/wordpress/publish-bulk. `failed` is `site` (its terms could not be read), `no_key` (no text provider key) or `model` (some posts got none).",
    body: {
      schema: termChoicesSchema(keys),
      source: wp('termChoicesSchema'),
      example: { siteId: 1, resultIds: ['0b7c4a52-53b3-4a3e-9a57-0d6f1c2a9e10'] },
    },
    response: { schema: anyObject('TermChoices'), description: '`categories` and `tags` of the site, `choices` per result, `failed`.' },
  },
  {
    route: 'api.wordpress.publish-bulk',
    method: 'post',
    refuses: [403, 409],
    path: '/api/wordpress/publish-bulk',
    tag: 'WordPress',
    summary: 'Publish many results, spread over a schedule',
    description:
      '`postStatus` gives every post its status on the site: `publish` (the default), `draft` or `pending` (review). Posts to be published at a later time are made on the site at once as scheduled (`future`) posts, so wp-admin shows them; ours publishes them on time if WordPress has not.',
    body: { schema: bulkPublishSchema(keys), source: wp('bulkPublishSchema') },
    response: {
      status: 202,
      schema: anyObject('BulkPublished'),
      description: '`queued` and the publications queued (they go on in the background).',
    },
  },
  {
    route: 'api.wordpress.scheduled',
    method: 'get',
    path: '/api/wordpress/scheduled',
    tag: 'WordPress',
    summary: 'Waiting and recently finished publications',
    response: { schema: anyObject('Scheduled'), description: 'The publications.' },
  },
  {
    route: 'api.wordpress.scheduled.$id',
    method: 'get',
    path: '/api/wordpress/scheduled/{id}',
    tag: 'WordPress',
    summary: 'One publication: its state, and the post once published',
    response: { schema: anyObject('Publication'), description: '`publication`.' },
  },
  {
    route: 'api.wordpress.scheduled.$id',
    method: 'put',
    refuses: [403, 409],
    path: '/api/wordpress/scheduled/{id}',
    tag: 'WordPress',
    summary: 'Move a waiting publication',
    body: { schema: rescheduleSchema(keys), source: wp('rescheduleSchema') },
    response: { schema: anyObject('Moved'), description: '`publication`.' },
  },
  {
    route: 'api.wordpress.scheduled.$id',
    method: 'delete',
    refuses: [409],
    path: '/api/wordpress/scheduled/{id}',
    tag: 'WordPress',
    summary: 'Cancel a waiting publication',
    response: { schema: anyObject('Canceled'), description: '`publication`.' },
  },
  {
    route: 'api.wordpress.upload-image',
    method: 'post',
    refuses: [502],
    path: '/api/wordpress/upload-image',
    tag: 'WordPress',
    summary: "Upload an image to a site's media library",
    body: { schema: uploadImageSchema(keys), source: wp('uploadImageSchema') },
    response: { schema: anyObject('Uploaded'), description: '`success`, `url`.' },
  },
];

/** Route modules under app/routes that are not part of the scriptable API, and why. */
export const excludedRoutes: Record<string, string> = {
  'api.openapi[.]json': 'This document.',
  'api.docs': 'The reference page rendered from this document.',
  'api.$': 'The not-found answer of every unknown /api path.',
  'api.analytics.pageview': "The browser's page-view beacon.",
  'api.login': 'Signing in makes a browser session (scripts use a token).',
  'api.logout': 'Ends a browser session.',
  'api.register': 'Account creation, in the browser.',
  'api.forgot-password': 'Account recovery, in the browser.',
  'api.reset-password': 'Account recovery, in the browser.',
  'api.api-keys': 'Provider keys are account secrets: changed with a browser session only.',
  'api.settings': 'Account settings (with provider keys): changed with a browser session only.',
  'api.subscription': 'Billing: the plan and its changes belong to the browser session.',
  'api.subscription_.activate': 'Billing: the plan and its changes belong to the browser session.',
  'api.subscription_.cancel': 'Billing: the plan and its changes belong to the browser session.',
  'api.subscription_.checkout': 'Billing: the plan and its changes belong to the browser session.',
  'api.subscription_.manual-upgrade': 'Billing: the plan and its changes belong to the browser session.',
  'api.subscription_.plans': 'Billing: the plan and its changes belong to the browser session.',
  'api.templates': "The workspace form's saved settings (UI state).",
  'api.templates_.$id': "The workspace form's saved settings (UI state).",
  'api.user_.settings': "The workspace form's last-used values (UI state).",
  'api.upload-csv': "The workspace's CSV reader; scripts send prompts and rows to /api/generate/text.",
};

// ---------------------------------------------------------------------------------------------
// The document

/**
 * A schema as the document shows it: a field that falls back on a bad value (`.catch`) is an
 * optional field of its inner type (zod-to-openapi does not read `.catch`).
 */
export function documentable(schema: ZodTypeAny): ZodTypeAny {
  if (schema instanceof z.ZodCatch) return documentable(schema._def.innerType as ZodTypeAny).optional();
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(schema.shape as Record<string, ZodTypeAny>).map(([k, v]) => [k, documentable(v)]));
    const rebuilt = z.object(shape);
    return schema._def.unknownKeys === 'passthrough'
      ? rebuilt.passthrough()
      : schema._def.unknownKeys === 'strict'
        ? rebuilt.strict()
        : rebuilt;
  }
  if (schema instanceof z.ZodEffects) {
    const inner = schema._def.schema as ZodTypeAny;
    return inner instanceof z.ZodObject ? documentable(inner) : schema;
  }
  return schema;
}

/** The request header of an idempotent start (docs/api.md, "Idempotent requests"). */
const idempotencyKey = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({
      param: {
        description:
          'Any 1 to 255 visible ASCII characters (a UUID is usual), kept 24 hours: the same key with the same body answers the first answer (never a second run or post); with another body, 422.',
      },
    }),
});

/** The response header of a replayed answer. */
const replayedHeader = {
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

/** The challenge of every 401 (RFC 6750). */
const challengeHeader = {
  'WWW-Authenticate': {
    description: '`Bearer realm="Postforge"`, with `error="invalid_token"` when the token sent was refused.',
    schema: { type: 'string' as const },
  },
};

/** The wait a refusal for load or an outage asks for. */
const retryAfterHeader = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' as const, minimum: 0 } },
};

const errorContent = { 'application/json': { schema: error } };

/** The refusals only some operations answer, by status. */
const refusals: Record<RefusalStatus, (op: ApiOperation) => object> = {
  402: () => ({ description: 'Not enough credits for the whole run (nothing was held).', content: errorContent }),
  403: () => ({ description: 'A Pro feature, on a plan without it.', content: errorContent }),
  409: (op) => ({
    description: op.idempotent
      ? 'A conflict with the current state (`existing` when the result is already on the site), or the first request with this Idempotency-Key is still running (retry after Retry-After).'
      : 'A conflict with the current state (`existing` when a result is already on the site).',
    headers: op.idempotent ? retryAfterHeader : undefined,
    content: { 'application/json': { schema: conflict } },
  }),
  422: (op) => ({
    description: op.idempotent
      ? 'The Idempotency-Key was used before with another body (or the address is one we never connect to).'
      : 'An address we never connect to (private or local): `diagnosis` says so.',
    content: errorContent,
  }),
  502: (op) => ({
    description:
      op.tag === 'WordPress'
        ? 'The WordPress site failed or refused: its own words in `error`, our `diagnosis` beside them.'
        : 'The text provider failed or gave an answer we could not use.',
    content: op.response?.schema && op.alsoAnswers?.[502] ? undefined : errorContent,
  }),
};

/** An operation's other answers, each with the content of its main one. */
const alsoAnswers = (op: ApiOperation) =>
  Object.fromEntries(
    Object.entries(op.alsoAnswers ?? {}).map(([status, description]) => [
      status,
      {
        description,
        content: op.response?.schema
          ? { 'application/json': { schema: Number(status) >= 400 ? z.union([op.response.schema, error]) : op.response.schema } }
          : undefined,
      },
    ]),
  );

/** The refusals of one operation, including those every operation may answer. */
function refusalAnswers(op: ApiOperation) {
  const own = Object.fromEntries((op.refuses ?? []).filter((s) => !op.alsoAnswers?.[s]).map((status) => [status, refusals[status](op)]));
  return {
    ...own,
    400: {
      description: 'Invalid input: `fields` names each field (an unknown or out-of-range value is refused, never replaced).',
      content: errorContent,
    },
    401: {
      description: 'No session or token, or a revoked or expired token.',
      headers: challengeHeader,
      content: errorContent,
    },
    404: { description: 'Not found (or not yours).', content: errorContent },
    429: {
      description: 'Too many requests for this token or account: wait Retry-After seconds.',
      headers: retryAfterHeader,
      content: errorContent,
    },
    503: {
      description: 'The service is briefly unavailable (its database or a full queue): try again after Retry-After seconds.',
      headers: retryAfterHeader,
      content: errorContent,
    },
  };
}

/** `post /api/results/{id}/retry` → `postResultsIdRetry`. */
export const operationId = (op: Pick<ApiOperation, 'method' | 'path'>) =>
  `${op.method}${op.path
    .replace(/^\/api/, '')
    .replace(/[{}]/g, '')
    .replace(/[/.-](\w)/g, (_, c: string) => c.toUpperCase())}`;

/** What each tag groups, for the document's tag list. */
const TAGS: Record<string, string> = {
  Generation: 'Start runs of posts or images, follow and cancel them.',
  Results: 'Read, edit, retry, fix, download and delete results.',
  Plans: 'Plan-first runs: read and edit the plans, drop or re-plan a post, then write the posts from their plans.',
  'Internal links': 'Links between the posts of a run and to the posts of a site.',
  Account: 'The current user, credits and their history.',
  WordPress: 'Sites, publishing now or on a schedule, and the media library.',
  Webhooks: 'Events sent to your endpoints (signed per Standard Webhooks).',
};

const pathParams = (path: string) => {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return names.length ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
};

let cached: ReturnType<typeof build> | undefined;

/** The document (built once per process). */
export function openApiDocument() {
  cached ??= build();
  return cached;
}

function build() {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'A personal API token (pf_live_...), made on Settings → Manage API tokens.',
  });
  const cookie = registry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: '__session' });
  registry.register('WebhookEvent', webhookEnvelope);
  registry.register('ResultFailedEvent', resultFailedEvent);
  registry.register('PublicationFailedEvent', publicationFailedEvent);
  registry.register('ResultFlaggedEvent', resultFlaggedEvent);
  registry.register('PublicationPublishedEvent', publicationPublishedEvent);
  for (const op of operations) {
    const params = pathParams(op.path);
    const status = op.response?.status ?? 200;
    registry.registerPath({
      method: op.method,
      path: op.path,
      tags: [op.tag],
      summary: op.summary,
      description: op.description ?? `${op.summary}.`,
      operationId: operationId(op),
      security: [{ [bearer.name]: [] }, { [cookie.name]: [] }],
      request: {
        params,
        headers: op.idempotent ? idempotencyKey : undefined,
        query: op.query ? (documentable(op.query.schema) as z.AnyZodObject) : undefined,
        body: op.body
          ? {
              required: true,
              content: { 'application/json': { schema: documentable(op.body.schema), example: op.body.example } },
            }
          : undefined,
      },
      responses: {
        ...alsoAnswers(op),
        [status]: {
          description: op.response?.description ?? 'OK',
          headers: op.idempotent ? replayedHeader : undefined,
          content: op.response?.schema
            ? { [op.response.contentType ?? 'application/json']: { schema: op.response.schema } }
            : op.response?.contentTypes
              ? Object.fromEntries(op.response.contentTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
              : undefined,
        },
        ...refusalAnswers(op),
      },
    });
  }
  for (const type of [...webhookEventTypes, WEBHOOK_TEST_EVENT]) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['Webhooks'],
      operationId: `webhook${type.replace(/(^|[.-])(\w)/g, (_, __: string, c: string) => c.toUpperCase())}`,
      summary: type,
      description:
        type === WEBHOOK_TEST_EVENT
          ? 'Sent by "Send test event" on the settings page, to that one endpoint whatever events it chose.'
          : `Sent to your endpoints that chose ${type}, signed per Standard Webhooks; answer 2xx, anything else is retried for about 24 hours.`,
      // We call you: no token of ours; the webhook-signature header proves the sender.
      security: [],
      request: { body: { content: { 'application/json': { schema: eventSchemas[type] ?? webhookEnvelope } } } },
      responses: { 200: { description: 'Received.' } },
    });
  }
  return enumsAcceptNull(
    new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'Postforge API',
        version: '1.0.0',
        description:
          'Start bulk generation runs, read their results, publish to WordPress. JSON in, JSON out. A method a path does not take is answered 405 with an `Allow` header.',
        contact: { name: 'Postforge' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/' }],
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    }),
  );
}

/**
 * A choice the server takes as null too (it means "the default") comes out of the generator as
 * `type: [..., "null"]` with an enum of the strings alone, which JSON Schema reads as refusing
 * null: the enum gets null as well, so the document accepts what the server accepts.
 */
export function enumsAcceptNull<T>(node: T): T {
  if (Array.isArray(node)) {
    node.forEach(enumsAcceptNull);
  } else if (node && typeof node === 'object') {
    const schema = node as { type?: unknown; enum?: unknown[] };
    if (Array.isArray(schema.type) && schema.type.includes('null') && Array.isArray(schema.enum) && !schema.enum.includes(null))
      schema.enum = [...schema.enum, null]; // a copy: the generator hands out the schema's own list
    Object.values(node).forEach(enumsAcceptNull);
  }
  return node;
}
