import type { ConnectionCheck, WpProblem } from '~/services/wordpress/client.server';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import type { Translate } from '~/utils/auth-schemas';
import { connectionFindingText, siteWords } from '~/utils/wordpress-errors';

// What the /api/wordpress/* routes and the WordPress page share beyond the API context
// (api-context.server.ts): the site id of a URL and the connection test's messages.

/** The site id in the URL; one that is not a positive integer is a site that does not exist (404). */
export function siteIdParam(raw: string | undefined): number {
  if (raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0) return Number(raw);
  throw new WordPressServiceError('not_found');
}

export function diagnosisOf(t: Translate, problem: WpProblem) {
  return { code: problem, hint: t(`diagnosis.${problem}`) };
}

/** The connection test's messages, with a diagnosis the user can act on. */
export function connectionMessage(t: Translate, check: ConnectionCheck) {
  // seoPlugin: whether the companion plugin is active (then the SEO meta can be written).
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
  // The detail is what the site answered, or what we read in its answers in the reader's language;
  // a call that never got an answer has none (our own text about it is English and for logs, the
  // hint says it in the reader's language).
  const detail = check.finding ? connectionFindingText(t, check.finding) : siteWords(check.problem, check.detail);
  return { success: false as const, message, diagnosis: { ...diagnosisOf(t, check.problem), detail } };
}
