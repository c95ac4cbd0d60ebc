import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { ZodTypeAny } from 'zod';
import { documentable, enumsAcceptNull, excludedRoutes, openApiDocument, operations } from '../../app/http/api-document.server';

// The OpenAPI document and the routes must agree: every api.* route module is
// documented or excluded with a reason; each documented request schema is the one its route (or the
// route glue it calls) imports, and the document shows exactly what that schema generates; every
// example in the document is accepted by the route's schema.

const root = path.resolve(__dirname, '../..');
const routesDir = path.join(root, 'app/routes');
const apiRoutes = fs
  .readdirSync(routesDir)
  .filter((f) => f.startsWith('api.') && /\.tsx?$/.test(f))
  .map((f) => f.replace(/\.tsx?$/, ''));

/** A route module's source and that of the app/http glue it imports (where some routes parse). */
function sourcesOf(route: string): string {
  const file = ['.ts', '.tsx'].map((ext) => path.join(routesDir, route + ext)).find((f) => fs.existsSync(f))!;
  const source = fs.readFileSync(file, 'utf8');
  const glue = [...source.matchAll(/from '~\/http\/([\w.-]+)'/g)].map((m) =>
    fs.readFileSync(path.join(root, 'app/http', `${m[1]}.ts`), 'utf8'),
  );
  return [source, ...glue].join('\n');
}

const imported = (source: string, name: string, module: string) =>
  new RegExp(`import\\s*(type\\s*)?\\{[^}]*\\b${name}\\b[^}]*\\}\\s*from\\s*'~/utils/${module}'`).test(source);

/** What zod-to-openapi makes of one schema, alone. */
function generated(schema: ZodTypeAny): unknown {
  const registry = new OpenAPIRegistry();
  registry.registerPath({
    method: 'post',
    path: '/x',
    request: { body: { content: { 'application/json': { schema: documentable(schema) } } } },
    responses: { 200: { description: 'ok' } },
  });
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: 'x', version: '1' } });
  return (enumsAcceptNull(doc).paths!['/x']!.post!.requestBody as { content: Record<string, { schema: unknown }> }).content[
    'application/json'
  ]!.schema;
}

async function schemaFromSource(source: { module: string; name: string }): Promise<ZodTypeAny> {
  const mod = (await import(`../../app/utils/${source.module}.ts`)) as Record<string, unknown>;
  const value = mod[source.name];
  expect(value, `${source.module}.${source.name}`).toBeDefined();
  return (typeof value === 'function' ? (value as (t: (k: string) => string) => ZodTypeAny)((k) => k) : value) as ZodTypeAny;
}

const doc = openApiDocument();

describe('the OpenAPI document', () => {
  it('covers every api.* route: documented, or excluded with a reason (and nothing else)', () => {
    const documented = new Set(operations.map((o) => o.route));
    for (const route of apiRoutes) {
      const listed = documented.has(route) || route in excludedRoutes;
      expect(listed, `${route} is neither documented nor excluded`).toBe(true);
      expect(documented.has(route) && route in excludedRoutes, `${route} is both documented and excluded`).toBe(false);
    }
    for (const route of [...documented, ...Object.keys(excludedRoutes)])
      expect(apiRoutes, `${route} names no route module`).toContain(route);
    for (const reason of Object.values(excludedRoutes)) expect(reason.length).toBeGreaterThan(5);
  });

  it('maps each route module to its path, and each documented method is one the route answers', () => {
    for (const op of operations) {
      const expected =
        '/' +
        op.route
          .replace(/_/g, '')
          .split('.')
          .map((seg) => (seg.startsWith('$') ? `{${seg.slice(1)}}` : seg))
          .join('/');
      expect(op.path, op.route).toBe(expected);
      const source = sourcesOf(op.route);
      if (op.method === 'get') expect(source, op.route).toMatch(/export (async function|const|function) loader/);
      else expect(source, op.route).toMatch(/export (async function|const|function) action/);
      expect((doc.paths![op.path] as Record<string, unknown>)[op.method], `${op.method} ${op.path}`).toBeDefined();
    }
  });

  it('documents GET for every documented route that answers it (a loader)', () => {
    for (const route of new Set(operations.map((o) => o.route))) {
      const source = sourcesOf(route);
      // A loader that only answers 405 takes no GET.
      if (
        !/export (async function|const|function) loader/.test(source) ||
        /function loader\([^)]*\)[^{]*\{\s*return methodNotAllowed/.test(source)
      )
        continue;
      expect(
        operations.some((o) => o.route === route && o.method === 'get'),
        `${route} answers GET`,
      ).toBe(true);
    }
  });

  it('documents each request body and query with the schema the route imports, exactly as it generates', async () => {
    for (const op of operations) {
      const source = sourcesOf(op.route);
      if (op.body) {
        expect(imported(source, op.body.source.name, op.body.source.module), `${op.route} imports ${op.body.source.name}`).toBe(true);
        const fromRoute = await schemaFromSource(op.body.source);
        const inDoc = (doc.paths![op.path] as Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>)[op.method]!
          .requestBody.content['application/json']!.schema;
        expect(inDoc, `${op.method} ${op.path}`).toEqual(generated(fromRoute));
      }
      if (op.query) {
        expect(imported(source, op.query.source.name, op.query.source.module), `${op.route} imports ${op.query.source.name}`).toBe(true);
        const fromRoute = (await schemaFromSource(op.query.source)) as unknown as { shape: Record<string, unknown> };
        const params = (
          (doc.paths![op.path] as Record<string, { parameters?: { name: string; in: string }[] }>)[op.method]!.parameters ?? []
        )
          .filter((p) => p.in === 'query')
          .map((p) => p.name);
        expect(params.sort()).toEqual(Object.keys(fromRoute.shape).sort());
      }
    }
  });

  it('every example in the document is accepted by the schema of its route', async () => {
    let examples = 0;
    for (const op of operations) {
      const body = (doc.paths![op.path] as Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>)[op.method]!
        .requestBody?.content['application/json']?.example;
      if (body !== undefined) {
        examples++;
        const result = (await schemaFromSource(op.body!.source)).safeParse(body);
        expect(result.success, `${op.method} ${op.path}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
      }
      if (op.query?.example) {
        examples++;
        expect((await schemaFromSource(op.query.source)).safeParse(op.query.example).success).toBe(true);
      }
    }
    expect(examples).toBeGreaterThanOrEqual(8);
  });

  it('a schema change shows: a field added to the route schema is missing from a stale document', async () => {
    // The premise of the comparison above: the generated form is sensitive to the schema's fields.
    const schema = (await schemaFromSource({ module: 'generation-schema', name: 'resultContentSchema' })) as unknown as {
      extend: (s: Record<string, ZodTypeAny>) => ZodTypeAny;
    };
    const { z } = await import('zod');
    expect(generated(schema.extend({ extra: z.string() }))).not.toEqual(generated(schema as unknown as ZodTypeAny));
  });

  it('lists the webhook events with their envelope', () => {
    expect(Object.keys((doc as { webhooks?: object }).webhooks ?? {}).sort()).toEqual(
      [
        'credits.low',
        'publication.failed',
        'publication.published',
        'result.completed',
        'result.failed',
        'result.flagged',
        'run.completed',
        'webhook.test',
      ].sort(),
    );
  });

  it('lists the refusals each operation answers, with their bodies and headers', () => {
    type Op = {
      operationId?: string;
      tags?: string[];
      description?: string;
      parameters?: { name: string; in: string }[];
      responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: { $ref?: string } }> }>;
    };
    const op = (path: string, method: string) => (doc.paths![path] as Record<string, Op>)[method]!;
    const ids = new Set<string>();
    for (const o of operations) {
      const documented = op(o.path, o.method);
      expect(documented.operationId, `${o.method} ${o.path}`).toBeTruthy();
      expect(ids.has(documented.operationId!), documented.operationId).toBe(false);
      ids.add(documented.operationId!);
      expect(documented.description, documented.operationId).toBeTruthy();
      expect(documented.tags?.length).toBe(1);
      for (const status of ['400', '401', '404', '429', '503'])
        expect(documented.responses[status]?.content?.['application/json']?.schema.$ref, `${documented.operationId} ${status}`).toBe(
          '#/components/schemas/Error',
        );
      expect(documented.responses['401']!.headers).toHaveProperty('WWW-Authenticate');
      expect(documented.responses['429']!.headers).toHaveProperty('Retry-After');
      expect(documented.responses['503']!.headers).toHaveProperty('Retry-After');
    }
    const text = op('/api/generate/text', 'post');
    expect(Object.keys(text.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '409', '422', '429', '503']);
    expect(text.parameters?.find((p) => p.in === 'header')?.name).toBe('Idempotency-Key');
    expect(text.responses['200']!.headers).toHaveProperty('Idempotent-Replayed');
    const publish = op('/api/wordpress/publish', 'post');
    expect(publish.responses['409']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/Conflict');
    expect(Object.keys(publish.responses)).toEqual(expect.arrayContaining(['202', '403', '409', '422', '502']));
    expect(Object.keys(op('/api/results/{id}/download', 'get').responses['200']!.content!)).toEqual(['text/plain', 'image/*']);
    const schemas = (doc.components as { schemas: Record<string, { properties?: Record<string, unknown> }> }).schemas;
    expect(schemas.Conflict!.properties).toHaveProperty('existing');
    expect(schemas.WebhookEvent).toBeDefined();
    // result.failed says why as a code (beside an English text for logs).
    const failedData = schemas.ResultFailedEvent!.properties!.data as { properties: Record<string, unknown>; required: string[] };
    expect(failedData.required).toEqual(expect.arrayContaining(['errorCode', 'error']));
    // result.flagged carries its report's summary; publication.published the post's WordPress status.
    const flaggedData = schemas.ResultFlaggedEvent!.properties!.data as { required: string[] };
    expect(flaggedData.required).toEqual(expect.arrayContaining(['resultId', 'cause', 'quality']));
    const publishedData = schemas.PublicationPublishedEvent!.properties!.data as { required: string[] };
    expect(publishedData.required).toContain('postStatus');
  });

  it('a choice the server also takes as null (the default) lists null in its enum, and the list itself is untouched', async () => {
    type Property = { type?: string | string[]; enum?: unknown[] };
    const body = (doc.paths!['/api/generate/text'] as { post: { requestBody: { content: Record<string, { schema: unknown }> } } }).post
      .requestBody.content['application/json']!.schema as { properties: Record<string, Property> };
    const language = body.properties.language!;
    expect(language.type).toContain('null');
    expect(language.enum).toContain(null);
    expect(language.enum).toContain('English (US)');
    // The generator hands out the zod enum's own list: the document's null must not reach it.
    const { contentLanguages } = await import('../../app/catalogue');
    expect((contentLanguages as readonly unknown[]).includes(null)).toBe(false);
  });

  it("documents `model` as the catalogue's ids, and accepts every id the catalogue names", async () => {
    const catalogue = await import('../../app/catalogue');
    const ids = (kind: 'text' | 'image') => catalogue.models.filter((m) => m.kind === kind).map((m) => m.id);
    const bodySchema = (path: string) =>
      (
        doc.paths![path] as Record<
          string,
          { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }
        >
      ).post!.requestBody.content['application/json']!.schema.properties.model as { enum?: string[] };
    expect(bodySchema('/api/generate/text').enum?.slice().sort()).toEqual(ids('text').sort());
    expect(bodySchema('/api/generate/image').enum?.slice().sort()).toEqual(ids('image').sort());
    const text = await schemaFromSource({ module: 'generation-schema', name: 'textGenerationSchema' });
    const image = await schemaFromSource({ module: 'generation-schema', name: 'imageGenerationSchema' });
    for (const model of [catalogue.DEFAULT_TEXT_MODEL, catalogue.TEMPLATE_DEFAULT_TEXT_MODEL, ...ids('text')]) {
      const parsed = text.safeParse({ prompts: 'One topic', model });
      expect(parsed.success, `${model}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
    for (const model of [catalogue.DEFAULT_IMAGE_MODEL, ...ids('image')])
      expect(image.safeParse({ prompts: ['A red bicycle'], model }).success, model).toBe(true);
    const unknown = text.safeParse({ prompts: 'One topic', model: 'openai/gpt-5' });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0]).toMatchObject({ path: ['model'], message: 'validation.modelUnknown' });
    expect(text.safeParse({ prompts: 'One topic', model: ' ' }).error?.issues[0]?.message).toBe('validation.modelRequired');
    expect(text.safeParse({ prompts: 'One topic' }).error?.issues[0]?.message).toBe('validation.modelRequired');
  });
});
