import { Form, useLocation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { languages, type Language } from '~/i18n';

/**
 * Two submit buttons posting to /language (the choice is saved and the page reloads).
 * A full-document post, so it behaves the same with and without JavaScript; with JavaScript the
 * choice is also written to localStorage['language'] first.
 */
export function LanguageSwitcher({ className = '', compact = false }: { className?: string; compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const location = useLocation();
  const current = i18n.language as Language;
  return (
    <Form
      method="post"
      action="/language"
      reloadDocument
      className={className}
      onSubmit={(event) => {
        const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        try {
          if (submitter?.value) localStorage.setItem('language', submitter.value);
        } catch {
          // Storage can be unavailable (private mode); the cookie still carries the choice.
        }
      }}
    >
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <div
        role="group"
        aria-label={t('language.label')}
        className="inline-flex rounded-lg bg-slate-100 p-0.5 ring-1 ring-inset ring-slate-200"
      >
        {languages.map((language) => {
          const active = language === current;
          return (
            <button
              key={language}
              type="submit"
              name="language"
              value={language}
              lang={language}
              aria-pressed={active}
              className={`whitespace-nowrap rounded-md px-2.5 py-1 text-xs font-semibold transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600 ${
                active ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900'
              }`}
            >
              {compact ? (
                // Below 640 px the short name ("EN", "中"); the accessible name stays the full one.
                <>
                  <span aria-hidden="true" className="sm:hidden">
                    {t(`language.short.${language}`)}
                  </span>
                  <span className="sr-only sm:not-sr-only">{t(`language.names.${language}`)}</span>
                </>
              ) : (
                t(`language.names.${language}`)
              )}
            </button>
          );
        })}
      </div>
    </Form>
  );
}
