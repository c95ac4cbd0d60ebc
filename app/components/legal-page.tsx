import type { MetaFunction, TypedResponse } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Logo } from '~/components/icons';
import { LanguageSwitcher } from '~/components/language-switcher';
import { LegalLinks } from '~/components/legal-links';
import type { LegalAnswer, LegalDocument } from '~/utils/legal-document';
import { AppLink } from '~/components/ui/app-link';

/** The frame and text of /terms, /privacy and /contact (texts come translated from the loader). */
export function LegalPage({ doc, children }: { doc: LegalDocument; children?: React.ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex h-16 max-w-4xl items-center gap-4 px-4 sm:px-6">
          <AppLink
            to="/"
            className="flex items-center gap-2 rounded-lg font-bold text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            <Logo />
            <span className="text-lg tracking-tight">{t('appName')}</span>
          </AppLink>
          <div className="ml-auto">
            <LanguageSwitcher />
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-4xl flex-1 px-4 py-10 sm:px-6">
        <article className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-10">
          <h1 className="text-3xl font-bold tracking-tight text-slate-900">{doc.title}</h1>
          <p className="mt-2 text-sm text-slate-600">{doc.updated}</p>
          <p className="mt-6 text-base text-slate-800">{doc.intro}</p>
          {children}
          {doc.sections.map((section) => (
            <section key={section.heading} className="mt-8">
              <h2 className="text-xl font-semibold text-slate-900">{section.heading}</h2>
              {section.body.map((paragraph) => (
                <p key={paragraph} className="mt-3 text-base leading-relaxed text-slate-700">
                  {paragraph}
                </p>
              ))}
            </section>
          ))}
        </article>
      </main>
      <footer className="border-t border-slate-200 bg-white">
        <div className="mx-auto flex max-w-4xl flex-wrap items-center justify-between gap-4 px-4 py-6 sm:px-6">
          <AppLink to="/" className="text-sm text-slate-700 hover:text-slate-900">
            {doc.backHome}
          </AppLink>
          <LegalLinks />
        </div>
      </footer>
    </div>
  );
}

/** The meta and page of the routes /terms, /privacy and /contact, whose loaders call legalDocument. */
type LegalLoader = () => Promise<TypedResponse<LegalAnswer>>;

export const legalMeta: MetaFunction<LegalLoader> = ({ data }) =>
  data
    ? [
        { title: `${data.doc.title} · Postforge` },
        // The document's opening sentence says what the page is, for search results.
        { name: 'description', content: data.doc.intro },
      ]
    : [{ title: 'Postforge' }];

export function LegalRoute() {
  const { doc, emailLabel } = useLoaderData<LegalLoader>();
  return (
    <LegalPage doc={doc}>
      {emailLabel ? (
        <p className="mt-6 rounded-lg bg-indigo-50 p-4 text-base text-slate-900 ring-1 ring-indigo-100">
          <span className="font-semibold">{emailLabel}: </span>
          <a href={`mailto:${doc.contactEmail}`} className="text-indigo-700 underline">
            {doc.contactEmail}
          </a>
        </p>
      ) : null}
    </LegalPage>
  );
}
