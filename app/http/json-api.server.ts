import { json } from '@remix-run/node';
import type { SafeParseReturnType, ZodError, ZodTypeAny, input, output } from 'zod';
import type { Translate } from '~/utils/auth-schemas';
import { getT } from '~/i18n.server';

// Helpers for the JSON resource routes: every failure is `{error, fields?}` with a 4xx
// status; nothing a client sends turns into a 500.

export type ApiErrorBody = { error: string; fields?: Record<string, string[]> };

/** The one JSON answer of the API: never cached (answers are per user); `init` a status or more headers. */
export function noStore<T>(data: T, init: number | { status?: number; headers?: HeadersInit } = {}) {
  const { status = 200, headers } = typeof init === 'number' ? { status: init } : init;
  const merged = new Headers(headers);
  if (!merged.has('Cache-Control')) merged.set('Cache-Control', 'no-store');
  return json(data, { status, headers: merged });
}

export function apiError(status: number, error: string, init: { fields?: Record<string, string[]>; headers?: HeadersInit } = {}) {
  const body: ApiErrorBody = init.fields ? { error, fields: init.fields } : { error };
  return noStore(body, { status, headers: init.headers });
}

/** 405 for a method the endpoint does not take. */
export async function methodNotAllowed(request: Request, allow = 'POST') {
  const t = await getT(request, 'auth');
  return apiError(405, t('errors.methodNotAllowed'), { headers: { Allow: allow } });
}

/** 400 with the first message as `error` and every field's messages under `fields`. */
export function validationError(error: ZodError) {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : '_form';
    (fields[key] ??= []).push(issue.message);
  }
  return apiError(400, error.issues[0]?.message ?? 'Invalid request', { fields });
}

/**
 * The request's JSON object body, or a 400 Response to return: wrong content type, malformed JSON
 * or anything but an object.
 */
export async function readJsonObject(request: Request): Promise<Record<string, unknown> | Response> {
  const t = await getT(request, 'auth');
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[\w.-]+\+json$/.test(type)) {
    return apiError(400, t('errors.unsupportedContentType'));
  }
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return apiError(400, t('errors.invalidJson'));
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return apiError(400, t('errors.invalidJson'));
  return body as Record<string, unknown>;
}

/** The request's form data, or a 400 Response to return (a body that is not a form). */
export async function readFormData(request: Request): Promise<FormData | Response> {
  try {
    return await request.formData();
  } catch {
    const t = await getT(request, 'auth');
    return new Response(t('errors.generic'), { status: 400, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
}

export type ApiInput<S extends ZodTypeAny> = {
  t: Translate;
  body: Record<string, unknown>;
  parsed: SafeParseReturnType<input<S>, output<S>>;
};

/**
 * The common start of a JSON POST endpoint: 405 for other methods, 400 for a body that is not a
 * JSON object, then the body checked against the schema built in the request's language.
 */
export async function readApiInput<S extends ZodTypeAny>(
  request: Request,
  schemaFor: (t: Translate) => S,
): Promise<ApiInput<S> | Response> {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const t = (await getT(request, 'auth')) as Translate;
  return { t, body, parsed: schemaFor(t).safeParse(body) };
}
