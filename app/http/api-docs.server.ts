import crypto from 'node:crypto';
import { getT } from '~/i18n.server';
import { detectLanguage } from '~/i18n.server';
import { normalizeLanguage, type Language } from '~/i18n';

// GET /api/openapi.json and GET /api/docs: the document, and a reference page rendered
// from it on the server (plain HTML: no script, so it reads the same without JavaScript). The page's
// own words come from the `developer` namespace in the reader's language (?lang= overrides).

const CACHE = 'public, max-age=300';

// The document's module (its zod schemas, zod-to-openapi) loads on the first request for it: two
// rare routes need it, and kept from start-up it is ~1 MB of every server's heap.
const loadDocument = async () => (await import('~/http/api-document.server')).openApiDocument();

let json: { body: string; etag: string } | undefined;

/** The document as JSON, public and cacheable (it changes only with a deploy). */
export async function openApiResponse(request: Request): Promise<Response> {
  json ??= await (async () => {
    const body = JSON.stringify(await loadDocument());
    return { body, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  })();
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': CACHE,
    ETag: json.etag,
    'Access-Control-Allow-Origin': '*',
  };
  if (request.headers.get('if-none-match') === json.etag) return new Response(null, { status: 304, headers });
  return new Response(json.body, { headers });
}

const esc = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  $ref?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  format?: string;
};

function typeOf(s: Schema | undefined): string {
  if (!s) return '';
  if (s.$ref) return s.$ref.split('/').pop()!;
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  const base = Array.isArray(s.type) ? s.type.filter((x) => x !== 'null').join(' | ') : (s.type ?? 'any');
  if (base === 'array') return `${typeOf(s.items)}[]`;
  return s.format ? `${base} (${s.format})` : base;
}

function constraints(s: Schema): string {
  const parts: string[] = [];
  if (s.enum) parts.push(s.enum.map((v) => JSON.stringify(v)).join(', '));
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`${s.minimum ?? ''}…${s.maximum ?? ''}`);
  if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength}`);
  if (s.default !== undefined) parts.push(`= ${JSON.stringify(s.default)}`);
  return parts.join(' · ');
}

type T = (key: string, o?: Record<string, unknown>) => string;

function fieldTable(t: T, rows: { name: string; schema: Schema; required: boolean }[]): string {
  if (!rows.length) return '';
  return `<table><thead><tr><th scope="col">${esc(t('docs.field'))}</th><th scope="col">${esc(t('docs.type'))}</th><th scope="col">${esc(
    t('docs.required'),
  )}</th><th scope="col">${esc(t('docs.description'))}</th></tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr><td><code>${esc(r.name)}</code></td><td>${esc(typeOf(r.schema))}</td><td>${esc(r.required ? t('docs.yes') : t('docs.no'))}</td><td>${esc(
          constraints(r.schema),
        )}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

type Operation = {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
};

const anchor = (method: string, path: string) => `${method}-${path.replace(/[^a-z0-9]+/gi, '-')}`;

/** The reference page, in the reader's language. */
export async function apiDocsResponse(request: Request): Promise<Response> {
  const asked = normalizeLanguage(new URL(request.url).searchParams.get('lang'));
  const language: Language = asked ?? (await detectLanguage(request));
  const t = (await getT(language, 'developer')) as T;
  const doc = (await loadDocument()) as unknown as {
    info: { title: string; description?: string };
    paths: Record<string, Record<string, Operation>>;
    webhooks?: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, Schema> };
  };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const section = ({ path, method, op }: (typeof ops)[number]) => {
    const query = (op.parameters ?? []).filter((p) => p.in === 'query');
    const body = op.requestBody?.content['application/json'];
    const bodySchema = body?.schema;
    const bodyRows = bodySchema?.properties
      ? Object.entries(bodySchema.properties).map(([name, schema]) => ({
          name,
          schema,
          required: bodySchema.required?.includes(name) ?? false,
        }))
      : [];
    return `<section id="${anchor(method, path)}"><h3><span class="method">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p>${op.description ? `<p>${esc(op.description)}</p>` : ''}
${
  query.length
    ? `<h4>${esc(t('docs.query'))}</h4>${fieldTable(
        t,
        query.map((p) => ({ name: p.name, schema: p.schema, required: Boolean(p.required) })),
      )}`
    : ''
}
${body ? `<h4>${esc(t('docs.requestBody'))}</h4>${fieldTable(t, bodyRows)}` : ''}
${body?.example ? `<h4>${esc(t('docs.example'))}</h4><pre><code>${esc(JSON.stringify(body.example, null, 2))}</code></pre>` : ''}
<h4>${esc(t('docs.responses'))}</h4><ul>${Object.entries(op.responses)
      .map(([status, r]) => {
        const schema = Object.values(r.content ?? {})[0]?.schema;
        return `<li><strong>${esc(status)}</strong> ${esc(r.description)}${schema ? ` <code>${esc(typeOf(schema))}</code>` : ''}</li>`;
      })
      .join('')}</ul></section>`;
  };
  const envelope = doc.components?.schemas?.WebhookEvent;
  const html = `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(t('meta.docsTitle'))}</title>
<style>body{font:15px/1.55 system-ui,sans-serif;color:#0f172a;max-width:960px;margin:0 auto;padding:24px}code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f1f5f9;padding:12px;border-radius:8px;overflow:auto}table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border-bottom:1px solid #e2e8f0;padding:4px 8px;text-align:left;vertical-align:top}section{border-top:1px solid #cbd5e1;padding-top:8px;margin-top:24px}.method{display:inline-block;min-width:4em;font-size:12px;font-weight:700;color:#fff;background:#4f46e5;border-radius:4px;padding:2px 6px;text-align:center}nav a{margin-right:12px}a{color:#4338ca}</style>
</head><body>
<nav aria-label="language"><a href="?lang=en" lang="en">English</a><a href="?lang=zh-HK" lang="zh-HK">繁體中文</a></nav>
<h1>${esc(t('docs.title'))}</h1>
<p>${esc(t('docs.intro', { url: '/api/openapi.json' }))} <a href="/api/openapi.json">/api/openapi.json</a></p>
<h2>${esc(t('docs.contents'))}</h2>
<ul>${ops.map(({ path, method, op }) => `<li><a href="#${anchor(method, path)}"><code>${esc(method.toUpperCase())} ${esc(path)}</code></a> ${esc(op.summary)}</li>`).join('')}</ul>
${ops.map(section).join('\n')}
<section id="webhooks"><h2>${esc(t('docs.webhooksTitle'))}</h2><p>${esc(t('docs.webhooksIntro'))} <a href="/settings/webhooks">/settings/webhooks</a></p>
<ul>${Object.keys(doc.webhooks ?? {})
    .map((type) => `<li><code>${esc(type)}</code> ${esc(t(`webhooks.eventNames.${type}`))}</li>`)
    .join('')}</ul>
${
  envelope?.properties
    ? fieldTable(
        t,
        Object.entries(envelope.properties).map(([name, schema]) => ({
          name,
          schema,
          required: envelope.required?.includes(name) ?? false,
        })),
      )
    : ''
}
<pre><code>webhook-id: msg_…\nwebhook-timestamp: 1700000000\nwebhook-signature: v1,…</code></pre></section>
</body></html>`;
  return new Response(html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': CACHE,
      Vary: 'Accept-Language, Cookie',
      'Content-Language': language,
    },
  });
}
