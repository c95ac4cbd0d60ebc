import { json } from '@remix-run/node';
import type { ZodTypeAny, input, output, SafeParseReturnType } from 'zod';
import { getT } from '~/i18n.server';
import type { SessionUser } from '~/services/sessions.server';
import { WpError, type ConnectionCheck, type WpProblem } from '~/services/wordpress-client.server';
import { WordPressServiceError } from '~/services/wordpress.server';
import type { Translate } from '~/utils/auth-schemas';
import { apiError, methodNotAllowed, readJsonObject, validationError } from '~/http/json-api.server';
import { apiHeaders, apiSession } from '~/http/api-session.server';

// The common parts of the /api/wordpress/* resource routes: the signed-in user (401 otherwise),
// the JSON body checked against a schema in the user's language, and service errors as statuses.

export type WpApiContext = { user: SessionUser; t: Translate; headers: Headers };

export async function wpApiContext(request: Request): Promise<WpApiContext | Response> {
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  return { user: session.user, t: (await getT(request, 'wordpress')) as Translate, headers: apiHeaders(session) };
}

/** The JSON body checked against schema: its value, and the body as sent (raw, for an Idempotency-Key's fingerprint). */
export async function readBody<S extends ZodTypeAny>(
  request: Request,
  schema: S,
): Promise<{ value: output<S>; raw: Record<string, unknown> } | Response> {
  const body = await readJsonObject(request);
  if (body instanceof Response) return body;
  const parsed: SafeParseReturnType<input<S>, output<S>> = schema.safeParse(body);
  if (!parsed.success) return validationError(parsed.error);
  return { value: parsed.data, raw: body };
}

export function ok(ctx: WpApiContext, data: unknown, status = 200) {
  return json(data, { status, headers: ctx.headers });
}

/** The id in the URL, or null when it is not a positive integer (then: 404). */
export function siteIdParam(raw: string | undefined): number | null {
  return raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

export function notFound(ctx: WpApiContext) {
  return apiError(404, ctx.t('sites.notFound'), { headers: ctx.headers });
}

/** Service and site errors as JSON statuses; anything else is rethrown. */
export function serviceError(ctx: WpApiContext, error: unknown) {
  if (error instanceof WordPressServiceError) {
    if (error.code === 'not_found') return notFound(ctx);
    if (error.code === 'not_pro') return apiError(403, ctx.t('publish.proOnly'), { headers: ctx.headers });
    if (error.code === 'no_content') return apiError(400, ctx.t('publish.noContent'), { headers: ctx.headers });
    if (error.code === 'not_publishable') return apiError(400, ctx.t('bulk.notPublishable'), { headers: ctx.headers });
    if (error.code === 'past_start') return apiError(400, ctx.t('validation.pastStart'), { headers: ctx.headers });
    if (error.code === 'blocked_url') {
      return json(
        { error: ctx.t('sites.blockedUrl'), diagnosis: diagnosisOf(ctx.t, 'blocked_address') },
        { status: 422, headers: ctx.headers },
      );
    }
    if (error.code === 'not_waiting') return apiError(409, ctx.t('scheduled.notWaiting'), { headers: ctx.headers });
    if (error.code === 'already_published' && error.existingMany.length > 0) {
      // Bulk: every selected result already on the site, and the choices (onExisting).
      return json(
        {
          error: ctx.t('bulk.existing.conflict'),
          existing: error.existingMany.map(({ id, resultId, status, postId, link }) => ({
            resultId,
            publicationId: id,
            status,
            postId,
            link,
          })),
        },
        { status: 409, headers: ctx.headers },
      );
    }
    if (error.code === 'already_published' && error.existing) {
      // Publishing a result to a site again is the caller's choice: onExisting 'update' or 'new'.
      const { id, status, postId, link, publishAt, publishedAt } = error.existing;
      return json(
        { error: ctx.t('publish.existing.conflict'), existing: { publicationId: id, status, postId, link, publishAt, publishedAt } },
        { status: 409, headers: ctx.headers },
      );
    }
  }
  if (error instanceof WpError) {
    return json({ error: error.message, diagnosis: diagnosisOf(ctx.t, error.problem) }, { status: 502, headers: ctx.headers });
  }
  throw error;
}

export function diagnosisOf(t: Translate, problem: WpProblem) {
  return { code: problem, hint: t(`diagnosis.${problem}`) };
}

/** SPEC §8's connection-test messages, with a diagnosis the user can act on. */
export function connectionMessage(t: Translate, check: ConnectionCheck) {
  // seoPlugin: whether the companion plugin is active (the SEO meta can be written; issue 21 §3).
  if (check.ok) return { success: true as const, message: t('connection.success'), seoPlugin: check.seoPlugin };
  const message =
    check.problem === 'not_wordpress'
      ? t('connection.notWordPress')
      : check.problem === 'rest_disabled' || check.problem === 'app_passwords_unavailable'
        ? t('connection.invalidServer')
        : check.problem === 'site_error' || check.problem === 'too_large'
          ? t('connection.invalidResponse')
          : ['auth_rejected', 'wrong_password', 'wrong_username', 'forbidden'].includes(check.problem)
            ? t('connection.failed')
            : t('connection.couldNotConnect');
  return { success: false as const, message, diagnosis: { ...diagnosisOf(t, check.problem), detail: check.detail } };
}

export { methodNotAllowed };
