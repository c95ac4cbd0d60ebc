import type { Translate } from './auth-schemas';
import { OUTBOUND_FAILURES } from './outbound-failures';

// Why a call to a WordPress site failed, as codes the pages explain in the user's language: our
// own diagnosis of the connection (`wordpress:diagnosis.<problem>`) and the WordPress REST API's
// error codes we know (`wordpress:errors.<code>`). WordPress's own text (English, whatever the
// user's language) is kept next to the explanation as its detail, never shown alone.

export const WP_PROBLEMS = [
  // The site never answered, or was refused before we asked: the outbound guard's codes.
  ...OUTBOUND_FAILURES,
  'not_wordpress',
  'rest_disabled',
  'app_passwords_unavailable',
  'auth_rejected',
  'wrong_password',
  'wrong_username',
  'forbidden',
  'site_error',
] as const;

export type WpProblem = (typeof WP_PROBLEMS)[number];

/**
 * What a connection test read in the site's answers when the site said nothing in words of its own
 * (its REST index lacks wp/v2 or Application Passwords, the user may not publish): the detail
 * beside the diagnosis, as `wordpress:connection.findings.<finding>`.
 */
export const CONNECTION_FINDINGS = ['no_wp_v2', 'no_app_passwords', 'cannot_publish'] as const;

export type ConnectionFinding = (typeof CONNECTION_FINDINGS)[number];

/** A connection test's finding in the reader's language. */
export function connectionFindingText(t: Translate, finding: ConnectionFinding): string {
  return t(`wordpress:connection.findings.${finding}`);
}

/** WordPress REST error codes with a message of ours, and our own reasons a publication ends. */
export const WP_ERROR_CODES = [
  'rest_not_logged_in',
  'rest_cannot_create',
  'rest_cannot_publish',
  'rest_cannot_edit',
  'rest_cannot_assign_term',
  'rest_forbidden',
  'rest_post_invalid_id',
  'rest_invalid_param',
  'rest_invalid_featured_media',
  'rest_upload_sideload_error',
  'rest_upload_unknown_error',
  'rest_upload_file_too_big',
  'rest_no_route',
  'rest_login_required',
  'internal_server_error',
  'db_insert_error',
  'not_pro',
  'site_removed',
  'status_mismatch',
] as const;

export type WpErrorCode = (typeof WP_ERROR_CODES)[number];

const problems = new Set<string>(WP_PROBLEMS);
const codes = new Set<string>(WP_ERROR_CODES);

/** The code worth storing for a failure: WordPress's own when we explain it, else our diagnosis. */
export function storedErrorCode(problem: WpProblem, wpCode?: string): string {
  return wpCode && codes.has(wpCode) ? wpCode : problem;
}

/** The catalogue key (namespace `wordpress`) that explains a stored code; a generic one when unknown. */
export function errorExplanationKey(code: string | null | undefined): string {
  if (code && codes.has(code)) return `errors.${code}`;
  if (code && problems.has(code)) return `diagnosis.${code}`;
  return 'errors.unknown';
}

/** Failures of the call itself (the outbound guard's): the site said nothing, the stored text is ours. */
const unanswered = new Set<string>(OUTBOUND_FAILURES);

/** What the site itself said about a failure, worth showing beside our explanation; none when it said nothing. */
export function siteWords(code: string | null | undefined, raw: string | null | undefined): string | null {
  return raw && !(code && unanswered.has(code)) ? raw : null;
}

/** A publication's failure in the reader's language: our explanation, then the site's own words. */
export function publicationErrorText(t: Translate, code: string | null | undefined, raw: string | null | undefined): string {
  const explanation = t(`wordpress:${errorExplanationKey(code)}`);
  const said = siteWords(code, raw);
  return said ? `${explanation} ${t('wordpress:errors.siteSaid', { text: said })}` : explanation;
}
