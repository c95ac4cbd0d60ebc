import { isRouteErrorResponse, useRouteError } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Logo } from '~/components/icons';
import { linkButtonClass } from '~/components/ui/button-link';
import { AppLink } from '~/components/ui/app-link';

/**
 * The error page of every route: a translated message for the status, never a stack trace or the
 * server's error text. English defaults keep it readable even if the catalogue failed to load.
 */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  const status = isRouteErrorResponse(error) ? error.status : 500;

  let title: string;
  let message: string;
  if (status === 404) {
    title = t('notFound.title', '404 Page Not Found');
    message = t('notFound.message', 'Did you forget to add the page to the router?');
  } else if (status === 401 || status === 403) {
    title = t('errors.title', 'Something went wrong');
    message = t('errors.unauthorized', 'Authentication error. Please login again.');
  } else {
    title = t('errors.title', 'Something went wrong');
    message = t('errors.generic', 'An error occurred. Please try again.');
  }

  return (
    <main id="main" className="flex min-h-screen flex-col items-center justify-center bg-slate-50 px-6 py-24 text-center">
      <Logo className="size-12" />
      <p className="mt-6 text-sm font-semibold text-indigo-700">{status}</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{title}</h1>
      <p className="mt-4 max-w-md text-base text-slate-700">{message}</p>
      <AppLink to="/" reloadDocument className={`mt-8 ${linkButtonClass('primary')}`}>
        {t('errors.home', 'Back to home')}
      </AppLink>
    </main>
  );
}
