import { useTranslation } from 'react-i18next';
import { errorExplanationKey, siteWords } from '~/utils/wordpress-errors';

/**
 * Why publishing failed, in the reader's language (from the stored code), with what the site
 * itself said (WordPress's own words, often English) as the detail.
 */
export function PublicationError({ code, raw }: { code: string | null; raw: string | null }) {
  const { t } = useTranslation('wordpress');
  const said = siteWords(code, raw);
  return (
    <span data-testid="publication-error" data-error-code={code ?? ''}>
      {t(errorExplanationKey(code))}
      {said ? <span className="text-slate-600"> {t('errors.siteSaid', { text: said })}</span> : null}
    </span>
  );
}
