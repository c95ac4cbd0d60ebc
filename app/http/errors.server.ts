import { getT } from '~/i18n.server';
import type { ApiTokenErrorCode } from '~/services/api-tokens.server';
import type { BillingErrorCode } from '~/services/billing/errors.server';
import type { CsvErrorCode } from '~/services/csv-import.server';
import type { IdempotencyErrorCode } from '~/services/idempotency.server';
import type { GenerationErrorCode } from '~/services/generation/rules.server';
import type { OutboundErrorCode } from '~/services/outbound.server';
import type { WebhookErrorCode } from '~/services/webhooks.server';
import { WpError } from '~/services/wordpress/client.server';
import { WordPressServiceError, type WordPressErrorCode } from '~/services/wordpress/errors.server';
import { AppError, type ErrorDomain } from '~/utils/app-error';
import { noStore } from '~/http/json-api.server';
import type { Translate } from '~/utils/auth-schemas';

// The error edge: the one place a service's refusal (an AppError) becomes an HTTP status and a
// message in the reader's language, for JSON answers and for pages (toasts, form errors) alike.
// Services never name statuses; routes never map codes to texts.

/** The status of every code of every domain (the compiler holds each domain's list complete). */
export const ERROR_STATUS: {
  generation: Record<GenerationErrorCode, number>;
  billing: Record<BillingErrorCode, number>;
  wordpress: Record<WordPressErrorCode | 'site_failed', number>;
  inputs: Record<CsvErrorCode, number>;
  tokens: Record<ApiTokenErrorCode | IdempotencyErrorCode, number>;
  developer: Record<WebhookErrorCode | OutboundErrorCode, number>;
} = {
  generation: {
    insufficient_credits: 402,
    pro_only: 403,
    no_api_key: 400,
    too_many_topics: 400,
    invalid: 400,
    not_found: 404,
    not_retryable: 409,
    not_editable: 409,
    no_content: 404,
    not_planned: 409,
    // One-click fixes: not offered for the post, one already running, the post edited, the price moved.
    not_fixable: 409,
    fix_running: 409,
    result_changed: 409,
    cost_changed: 409,
  },
  billing: {
    not_configured: 503,
    unknown_price: 400,
    requires_pro: 403,
    already_subscribed: 409,
    no_active_subscription: 400,
    no_customer: 404,
    not_found: 404,
    not_paid: 409,
  },
  wordpress: {
    not_found: 404,
    result_not_found: 404,
    publication_not_found: 404,
    not_pro: 403,
    no_content: 400,
    not_publishable: 400,
    not_image: 400,
    past_start: 400,
    past_time: 400,
    past_publish_date: 400,
    already_published: 409,
    // A post no longer waiting: gone from the queue (as not found), or not waiting on a retry.
    not_queued: 404,
    not_waiting: 409,
    plan_changed: 409,
    no_capacity: 409,
    outside_rules: 400,
    no_room: 409,
    bad_rules: 400,
    no_schedule: 404,
    // A site address the outbound guard refuses: not saved.
    blocked_url: 422,
    // Internal links: another post's (or no) link; an image, or a post not completed.
    link_not_found: 404,
    not_linkable: 409,
    // The site itself failed or refused (a bad gateway from the client's point of view).
    site_failed: 502,
  },
  inputs: {
    tooLarge: 413,
    tooManyRows: 400,
    invalidFormat: 400,
    noTopics: 400,
    notCsv: 400,
    missingFile: 400,
  },
  tokens: {
    too_many: 409,
    // A bearer token unknown, revoked or expired, or an Authorization header that is not one.
    invalid_token: 401,
    malformed_authorization: 401,
    // An Idempotency-Key malformed, reused with another request, or its first request still running.
    idempotency_key_invalid: 400,
    idempotency_mismatch: 422,
    idempotency_busy: 409,
  },
  developer: {
    // Webhook endpoints.
    not_found: 404,
    limit: 409,
    blocked_url: 422,
    // The outbound guard: an address refused before any call, or a call that failed on the way.
    bad_url: 422,
    bad_scheme: 422,
    blocked_address: 422,
    dns: 502,
    refused: 502,
    timeout: 504,
    tls: 502,
    network: 502,
    too_large: 502,
    too_many_redirects: 502,
  },
} satisfies Record<ErrorDomain, Record<string, number>>;

/** The HTTP status of a service refusal (500 for a code no domain lists, which the types rule out). */
export function errorStatus(error: AppError): number {
  return (ERROR_STATUS[error.domain] as Record<string, number>)[error.code] ?? 500;
}

/**
 * The refusal's message in the language of `t`. The key is qualified by the error's domain, so any
 * namespace's `t` explains any domain's refusal (the server holds every namespace).
 */
export function errorMessage(t: Translate, error: AppError): string {
  return t(`${error.domain}:${error.key}`, error.params);
}

/** A refusal as every surface shows it: its code, status and message, and the form field it is about. */
export type ExplainedError = { code: string; status: number; message: string; field?: string };

/**
 * THE way a refusal becomes words, for JSON answers and page actions (toasts, form errors): in the
 * language of `t`, or of the request. Anything that is not an AppError is rethrown: it is a bug,
 * answered 500 by the server.
 */
export async function explainError(error: unknown, via: Request | Translate): Promise<ExplainedError> {
  if (!(error instanceof AppError)) throw error;
  const t = via instanceof Request ? ((await getT(via, error.domain)) as Translate) : via;
  const message = errorMessage(t, error);
  return { code: error.code, status: errorStatus(error), message, ...(error.field ? { field: error.field } : {}) };
}

/** The refusal's message in the request's language. */
export async function translateError(request: Request, error: AppError): Promise<string> {
  return (await explainError(error, request)).message;
}

/**
 * The JSON answer of a service refusal: `{ error, fields? }` with its status, plus what a client
 * needs to act on it (the earlier publications of a 409 conflict, a site's diagnosis). Anything
 * that is not an AppError is rethrown: it is a bug, answered 500 by the server.
 */
export async function errorResponse(request: Request, error: unknown, headers?: HeadersInit): Promise<Response> {
  if (!(error instanceof AppError)) throw error;
  const t = (await getT(request, error.domain)) as Translate;
  const { message, status, field } = await explainError(error, t);
  const init = { status, headers };
  if (error instanceof WpError) {
    // The site's own words with our diagnosis (the error's message) beside them, so a user can
    // act on the diagnosis and show the site's answer to its host.
    return noStore({ error: error.message, diagnosis: { code: error.problem, hint: message } }, init);
  }
  if (error instanceof WordPressServiceError && error.code === 'blocked_url') {
    // Our diagnosis of the refused address beside the message (the same as a connection test's).
    const problem = 'blocked_address';
    return noStore({ error: message, diagnosis: { code: problem, hint: t(`diagnosis.${problem}`) } }, init);
  }
  if (error instanceof WordPressServiceError && error.existingMany.length > 0) {
    // Bulk: the selected results already on the site, and the choices (onExisting).
    const existing = error.existingMany.map(({ id, resultId, status, postId, link }) => ({
      resultId,
      publicationId: id,
      status,
      postId,
      link,
    }));
    return noStore({ error: message, existing }, init);
  }
  if (error instanceof WordPressServiceError && error.existing) {
    // Publishing a result to a site again is the caller's choice: onExisting 'update' or 'new'.
    const { id, status, postId, link, publishAt, publishedAt } = error.existing;
    return noStore({ error: message, existing: { publicationId: id, status, postId, link, publishAt, publishedAt } }, init);
  }
  return noStore(field ? { error: message, fields: { [field]: [message] } } : { error: message }, init);
}
