import { Link } from '@remix-run/react';
import { useTranslation } from 'react-i18next';

/** Terms, Privacy and Contact: in the landing page's and the app shell's footers. */
export function LegalLinks({ className = '' }: { className?: string }) {
  const { t } = useTranslation();
  const link = 'text-slate-700 hover:text-slate-900 underline-offset-2 hover:underline';
  return (
    <nav aria-label={t('legalLinks.label')}>
      <ul className={`flex flex-wrap gap-x-6 gap-y-2 text-sm ${className}`}>
        <li>
          <Link to="/terms" className={link}>
            {t('legalLinks.terms')}
          </Link>
        </li>
        <li>
          <Link to="/privacy" className={link}>
            {t('legalLinks.privacy')}
          </Link>
        </li>
        <li>
          <Link to="/contact" className={link}>
            {t('legalLinks.contact')}
          </Link>
        </li>
      </ul>
    </nav>
  );
}
