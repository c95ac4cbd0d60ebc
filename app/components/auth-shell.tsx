import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon, Logo } from '~/components/icons';
import { LanguageSwitcher } from '~/components/language-switcher';
import { ErrorList } from '~/components/ui/field';
import { AppLink } from '~/components/ui/app-link';

/** The public account pages' frame: a top bar (name linking home, language switch) and a centred card. */
export function AuthShell({ children, aside }: { children: ReactNode; aside?: ReactNode }) {
  const { t } = useTranslation('auth');
  const { t: tc } = useTranslation();
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex h-16 max-w-6xl items-center gap-4 px-4 sm:px-6">
          <AppLink
            to="/"
            aria-label={t('topBar.home')}
            className="flex items-center gap-2 rounded-lg font-bold text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            <Logo />
            <span className="text-lg tracking-tight">{tc('appName')}</span>
          </AppLink>
          <div className="ml-auto">
            <LanguageSwitcher />
          </div>
        </div>
      </header>
      <main id="main" className="flex flex-1 items-start justify-center px-4 py-10 sm:py-16">
        <div className={`grid w-full gap-8 ${aside ? 'max-w-5xl lg:grid-cols-2' : 'max-w-md'}`}>
          <div className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8">{children}</div>
          {aside}
        </div>
      </main>
    </div>
  );
}

/** A form-level message box: a title and the messages (e.g. "Login failed" / "Invalid email or password"). */
export function FormAlert({ id, title, errors }: { id?: string; title: string; errors?: ReadonlyArray<string> | null }) {
  if (!errors?.length) return null;
  return (
    <div id={id} role="alert" className="flex gap-3 rounded-lg bg-red-50 p-3 text-sm text-red-800 ring-1 ring-inset ring-red-200">
      <Icon name="alert" className="mt-0.5 size-5 shrink-0 text-red-600" />
      <div>
        <p className="font-semibold">{title}</p>
        <ErrorList errors={errors} className="mt-1 [&_li]:text-red-800" />
      </div>
    </div>
  );
}

/** A back link with an arrow. */
export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <AppLink to={to} className="inline-flex items-center gap-1 text-sm font-medium text-indigo-700 hover:text-indigo-900 hover:underline">
      <span aria-hidden="true">←</span>
      {children}
    </AppLink>
  );
}
