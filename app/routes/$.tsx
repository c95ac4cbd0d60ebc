import type { MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';

import { useTranslation } from 'react-i18next';
import { Logo } from '~/components/icons';
import { LanguageSwitcher } from '~/components/language-switcher';
import { linkButtonClass } from '~/components/ui/button-link';
import { rootT } from '~/utils/meta';
import type { ClientNamespace } from '~/i18n';
import { AppLink } from '~/components/ui/app-link';

// Any path no other route claims (the not-found page), answered with HTTP 404.

// The namespaces this page uses in the browser (see pageNamespaces in app/i18n.ts).
export const handle = { i18n: ['common'] satisfies ClientNamespace[] };

export async function loader() {
  return json(null, { status: 404 });
}

export async function action() {
  return json(null, { status: 404 });
}

export default function NotFound() {
  const { t } = useTranslation();
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <header className="mx-auto flex w-full max-w-7xl items-center justify-between px-4 py-4 sm:px-6 lg:px-8">
        <AppLink
          to="/"
          className="flex items-center gap-2 rounded-lg font-bold text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          <Logo />
          <span className="text-lg tracking-tight">{t('appName')}</span>
        </AppLink>
        <LanguageSwitcher />
      </header>
      <main id="main" className="flex flex-1 flex-col items-center justify-center px-6 pb-24 text-center">
        <p className="text-5xl font-bold text-indigo-700" aria-hidden="true">
          404
        </p>
        <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{t('notFound.title')}</h1>
        <p className="mt-4 max-w-md text-base text-slate-700">{t('notFound.message')}</p>
        <AppLink to="/" className={`mt-8 ${linkButtonClass('primary')}`}>
          {t('notFound.home')}
        </AppLink>
      </main>
    </div>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.notFoundTitle') }];
