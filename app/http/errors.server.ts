import { getT } from '~/i18n.server';
import type { BillingErrorCode } from '~/services/billing.server';
import type { CsvErrorCode } from '~/services/csv-import.server';
import type { GenerationErrorCode } from '~/services/generation/rules.server';
import { WpError } from '~/services/wordpress-client.server';
import { WordPressServiceError, type WordPressErrorCode } from '~/services/wordpress.server';
import { AppError, type ErrorDomain } from '~/utils/app-error';
import { noStore } from '~/http/json-api.server';
import type { Translate } from '~/utils/auth-schemas';

// The error edge: the one place a service's refusal (an AppError) becomes an HTTP status and a
// message in the request's language. Services never name statuses; routes never map codes.

/** The status of every code of every domain (the compiler holds each domain's list complete). */
export const ERROR_STATUS: {
  generation: Record<GenerationErrorCode, number>;
  billing: Record<BillingErrorCode, number>;
  wordpress: Record<WordPressErrorCode | 'site_failed', number>;
  inputs: Record<CsvErrorCode, number>;
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
    publication_not_found: 404,
    not_pro: 403,
    no_content: 400,
    not_publishable: 400,
    past_start: 400,
    already_published: 409,
    not_waiting: 409,
    plan_changed: 409,
    no_capacity: 409,
    outside_rules: 400,
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
} satisfies Record<ErrorDomain, Record<string, number>>;

/** The HTTP status of a service refusal (500 for a code no domain lists, which the types rule out). */
export function errorStatus(error: AppError): number {
  return (ERROR_STATUS[error.domain] as Record<string, number>)[error.code] ?? 500;
}

/** The refusal's message in the language of `t`, whose namespace must be the error's domain. */
export function errorMessage(t: Translate, error: AppError): string {
  return t(error.key, error.params);
}

/** The refusal's message in the request's language. */
export async function translateError(request: Request, error: AppError): Promise<string> {
  return errorMessage((await getT(request, error.domain)) as Translate, error);
}

/**
 * The JSON answer of a service refusal: `{ error, fields? }` with its status, plus what a client
 * needs to act on it (the earlier publications of a 409 conflict, a site's diagnosis). Anything
 * that is not an AppError is rethrown: it is a bug, answered 500 by the server.
 */
export async function errorResponse(request: Request, error: unknown, headers?: HeadersInit): Promise<Response> {
  if (!(error instanceof AppError)) throw error;
  const t = (await getT(request, error.domain)) as Translate;
  const message = errorMessage(t, error);
  const init = { status: errorStatus(error), headers };
  if (error instanceof WpError) {
    // The site's own words with our diagnosis (the error's message) beside them (SPEC §8).
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
  return noStore(error.field ? { error: message, fields: { [error.field]: [message] } } : { error: message }, init);
}
