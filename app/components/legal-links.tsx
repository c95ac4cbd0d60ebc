import { useTranslation } from 'react-i18next';
import { AppLink } from '~/components/ui/app-link';

/** Terms, Privacy and Contact: in the landing page's and the app shell's footers. */
export function LegalLinks({ className = '' }: { className?: string }) {
  const { t } = useTranslation();
  const link = 'text-slate-700 hover:text-slate-900 underline-offset-2 hover:underline';
  return (
    <nav aria-label={t('legalLinks.label')}>
      <ul className={`flex flex-wrap gap-x-6 gap-y-2 text-sm ${className}`}>
        <li>
          <AppLink to="/terms" className={link}>
            {t('legalLinks.terms')}
          </AppLink>
        </li>
        <li>
          <AppLink to="/privacy" className={link}>
            {t('legalLinks.privacy')}
          </AppLink>
        </li>
        <li>
          <AppLink to="/contact" className={link}>
            {t('legalLinks.contact')}
          </AppLink>
        </li>
      </ul>
    </nav>
  );
}
