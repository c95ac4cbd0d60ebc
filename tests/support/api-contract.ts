import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// Every answer of a documented /api operation checked against the OpenAPI document: the status is
// one the operation lists, the content type one it lists for that status, and a JSON body matches
// the schema. TestClient runs it on each /api answer, so a drift between a route and the document
// fails the test that met it, wherever that test is.

type Media = Record<string, { schema?: object }>;
type Operation = { responses: Record<string, { content?: Media }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: object };

const DOC_ID = 'https://postforge.invalid/openapi.json';

export class ContractDrift extends Error {
  override name = 'ContractDrift';
}

export type Answer = { method: string; path: string; status: number; contentType: string | null; body: unknown };

/** A checker for one document (the app's own unless told otherwise: a test may plant a drift). */
export function contractChecker(doc: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: DOC_ID, paths: doc.paths, components: doc.components });
  const validators = new Map<string, ValidateFunction>();
  // Literal paths before templated ones (/api/results/download-all before /api/results/{id}).
  const templates = Object.keys(doc.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}/?$`),
    }))
    .sort((a, b) => a.params - b.params);

  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  /** The drifts of one answer (empty when it is what the document says). */
  function check(answer: Answer): string[] {
    const path = answer.path.split('?')[0]!;
    const where = `${answer.method} ${path} → ${answer.status}`;
    const match = templates.find((t) => t.pattern.test(path));
    if (!match) return []; // not a documented path: an excluded route or the not-found answer
    const method = answer.method.toLowerCase();
    const operation = doc.paths[match.template]![method];
    if (!operation) {
      // A method the path does not take: the 405 every route answers, or HEAD of a GET.
      if (answer.status === 405 || (method === 'head' && doc.paths[match.template]!.get)) return [];
      return [`${where}: ${method} ${match.template} is not documented`];
    }
    const response = operation.responses[String(answer.status)];
    if (!response) return [`${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
    if (!response.content) return [];
    const type = (answer.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const media = Object.keys(response.content).find(
      (m) => m === type || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))) || m === '*/*',
    );
    if (!media)
      return [`${where}: content type ${type || '(none)'} not documented (documented: ${Object.keys(response.content).join(', ')})`];
    if (media !== 'application/json' || !response.content[media]!.schema) return [];
    const ref = `${DOC_ID}#/${pointer('paths', match.template, method, 'responses', String(answer.status), 'content', media, 'schema')}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    if (validate(answer.body)) return [];
    const errors = (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
    return [`${where}: body does not match the schema: ${errors.slice(0, 5).join('; ')} in ${JSON.stringify(answer.body).slice(0, 400)}`];
  }
  return { check };
}

let appChecker: ReturnType<typeof contractChecker> | undefined;

/** The checker of the app's own document (built once per test process). */
export async function apiContract() {
  if (!appChecker) {
    const { openApiDocument } = await import('../../app/http/api-document.server');
    appChecker = contractChecker(openApiDocument() as unknown as Document);
  }
  return appChecker;
}

/** Checks answers against another document from now on (a test planting a drift); none: the app's. */
export function checkAgainst(doc: object | undefined): void {
  appChecker = doc ? contractChecker(doc as Document) : undefined;
}

/**
 * Checks one answer of the app against its document and throws a ContractDrift naming what differs.
 * The body is read from a clone, so the caller still reads the answer.
 */
export async function assertAnswerMatchesDocument(method: string, path: string, res: Response): Promise<void> {
  if (!path.startsWith('/api/')) return;
  const contentType = res.headers.get('content-type');
  let body: unknown;
  if ((contentType ?? '').includes('json')) {
    const text = await res.clone().text();
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const drifts = (await apiContract()).check({ method, path, status: res.status, contentType, body });
  if (drifts.length) throw new ContractDrift(`answer differs from the OpenAPI document:\n${drifts.join('\n')}`);
}
