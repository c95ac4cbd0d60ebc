import type { Translate } from './generation-schema';

// Why a generation item failed, as codes the pages and the API explain in the reader's language
// (`generation:failures.<code>`). A code may carry the provider's HTTP status and the provider's own
// words (often English, whatever the reader's language), shown quoted after our sentence and never
// alone. Nothing else a failure met (a driver's message, a host, a stack) is ever shown.

export const GENERATION_FAILURES = [
  // Ours: the worker, the hold, a fault in our code.
  'interrupted',
  'hold_expired',
  'internal',
  'no_text_key',
  'no_image_key',
  // The provider's answer, or the lack of one.
  'provider_timeout',
  'provider_unreachable',
  'provider_malformed',
  'provider_auth',
  'provider_rate_limited',
  'provider_unavailable',
  'provider_refused',
  'provider_error',
  // The image provider's output.
  'image_failed',
  'image_missing',
  'image_download_failed',
  'image_not_image',
  'image_too_large',
] as const;

export type GenerationFailure = (typeof GENERATION_FAILURES)[number];

/** What a failure's sentence may name: the provider's HTTP status, and its own words (the detail). */
export type FailureParams = { status?: number; detail?: string };

const known = new Set<string>(GENERATION_FAILURES);

/** The catalogue key of a stored code; none (a failure stored before codes) or an unknown one reads "Generation failed". */
export function failureKey(code: string | null | undefined): string {
  return `generation:failures.${code && known.has(code) ? code : 'unknown'}`;
}

/** A failure in the reader's language: our sentence, then the provider's own words quoted. */
export function failureText(t: Translate, code: string | null | undefined, params?: FailureParams | null): string {
  const sentence = t(failureKey(code), { status: params?.status });
  const detail = params?.detail?.trim();
  // One catalogue text puts them together: each language has its own spacing and quotes.
  return detail ? t('generation:failures.providerSaid', { sentence, text: detail }) : sentence;
}

type Failing = { status: string; errorCode: string | null; errorParams: FailureParams | null };

/** A result's failure in the reader's language; null unless it failed. */
export function resultFailureText(t: Translate, result: Failing): string | null {
  return result.status === 'failed' ? failureText(t, result.errorCode, result.errorParams) : null;
}

/** A one-click fix of a post, as far as its failure goes. */
type FixFailing = { status: string; errorCode: string | null; errorParams: FailureParams | null };

/** A failed fix in the reader's language (`result_changed`: the post was edited meanwhile); null unless it failed. */
export function fixFailureText(t: Translate, fix: FixFailing): string | null {
  if (fix.status !== 'failed') return null;
  return fix.errorCode === 'result_changed' ? t('generation:fixFailures.resultChanged') : failureText(t, fix.errorCode, fix.errorParams);
}

/**
 * A result as the JSON API answers it: `error` its failure in the request's language, `errorCode`
 * as stored (the parameters are part of `error`); its latest fix the same way.
 */
export function resultForApi<R extends Failing & { fix?: FixFailing | null }>(
  t: Translate,
  result: R,
): Omit<R, 'errorParams'> & { error: string | null } {
  const { errorParams: _params, ...rest } = result;
  if (rest.fix) {
    const { errorParams: _fixParams, ...fix } = rest.fix;
    return { ...rest, fix: { ...fix, error: fixFailureText(t, rest.fix) } as unknown as R['fix'], error: resultFailureText(t, result) };
  }
  return { ...rest, error: resultFailureText(t, result) };
}
