import type { HeadersFunction, MetaFunction } from '@remix-run/node';

import { useTranslation } from 'react-i18next';
import { Icon, Logo, type IconName } from '~/components/icons';
import { LanguageSwitcher } from '~/components/language-switcher';
import { ButtonLink, linkButtonClass } from '~/components/ui/button-link';
import { LegalLinks } from '~/components/legal-links';
import { useRootData } from '~/root';
import { DEFAULT_TEXT_MODEL, findModel, modelCreditRange, plans, topUpPacks } from '~/catalogue';
import { formatUsd } from '~/utils/intl-format';
import { rootT } from '~/utils/meta';
import type { ClientNamespace } from '~/i18n';
import { AppLink } from '~/components/ui/app-link';

// No loader: the page depends only on the root loader's data (language, signed-in state), so
// entry.server can cache the anonymous render (see landingKey there).

// The namespaces this page uses in the browser (see pageNamespaces in app/i18n.ts).
export const handle = { i18n: ['common'] satisfies ClientNamespace[] };

export const headers: HeadersFunction = () => ({ Vary: 'Cookie, Accept-Language' });

const features: { key: string; icon: IconName }[] = [
  { key: 'bulk', icon: 'layers' },
  { key: 'languages', icon: 'globe' },
  { key: 'customization', icon: 'sliders' },
  { key: 'images', icon: 'image' },
  { key: 'wordpress', icon: 'send' },
  { key: 'providers', icon: 'cpu' },
];
const steps = ['topics', 'settings', 'generate', 'publish'] as const;
const previewTopics = ['one', 'two', 'three', 'four'] as const;

const sectionLink =
  'rounded-lg px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600';

function TopBar({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation();
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/70 bg-white/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:px-8">
        <AppLink
          to="/"
          className="flex shrink-0 items-center gap-2 rounded-lg font-bold text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          <Logo />
          {/* Phones: the logo alone, so the bar keeps its links on one line in both languages. */}
          <span className="sr-only text-lg tracking-tight sm:not-sr-only">{t('appName')}</span>
        </AppLink>
        <nav aria-label={t('landing.nav.label')} className="ml-6 hidden items-center gap-1 lg:flex">
          <a href="#features" className={sectionLink}>
            {t('landing.nav.features')}
          </a>
          <a href="#how-it-works" className={sectionLink}>
            {t('landing.nav.howItWorks')}
          </a>
          <a href="#pricing" className={sectionLink}>
            {t('landing.nav.pricing')}
          </a>
        </nav>
        <div className="ml-auto flex items-center gap-1.5 whitespace-nowrap sm:gap-3">
          <LanguageSwitcher compact />
          {signedIn ? (
            <ButtonLink to="/app" size="sm">
              {t('landing.nav.dashboard')}
            </ButtonLink>
          ) : (
            <>
              <AppLink to="/auth" className={`whitespace-nowrap ${sectionLink}`}>
                <span className="sm:hidden">{t('landing.nav.loginShort')}</span>
                <span className="hidden sm:inline">{t('landing.nav.login')}</span>
              </AppLink>
              <ButtonLink to="/auth?tab=register" size="sm" className="whitespace-nowrap">
                {t('landing.nav.getStarted')}
              </ButtonLink>
            </>
          )}
        </div>
      </div>
    </header>
  );
}

function Hero({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="hero-title" className="relative isolate overflow-hidden bg-gradient-to-b from-indigo-50 via-white to-white">
      <div aria-hidden="true" className="absolute inset-x-0 -top-40 -z-10 flex justify-center blur-3xl">
        <div className="h-[28rem] w-[56rem] rounded-full bg-gradient-to-tr from-indigo-200 via-violet-200 to-sky-200 opacity-60" />
      </div>
      <div className="mx-auto grid max-w-7xl items-center gap-12 px-4 pb-20 pt-16 sm:px-6 sm:pt-24 lg:grid-cols-2 lg:px-8">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-white px-3 py-1 text-sm font-medium text-indigo-700 shadow-sm ring-1 ring-indigo-100">
            <Icon name="sparkles" className="size-4" />
            {t('landing.hero.eyebrow')}
          </p>
          <h1 id="hero-title" className="mt-6 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
            {t('landing.hero.title')}{' '}
            <span className="bg-gradient-to-r from-indigo-700 to-violet-700 bg-clip-text text-transparent">
              {t('landing.hero.titleHighlight')}
            </span>
          </h1>
          <p className="mt-6 max-w-xl text-lg leading-8 text-slate-700">{t('landing.hero.subtitle')}</p>
          <div className="mt-8 flex flex-wrap items-center gap-3">
            {signedIn ? (
              <ButtonLink to="/app" size="lg">
                {t('landing.hero.dashboard')}
                <Icon name="arrowRight" className="size-5" />
              </ButtonLink>
            ) : (
              <ButtonLink to="/auth?tab=register" size="lg">
                {t('landing.hero.getStarted')}
                <Icon name="arrowRight" className="size-5" />
              </ButtonLink>
            )}
            <a href="#how-it-works" className={linkButtonClass('secondary', 'lg')}>
              {t('landing.hero.seeHow')}
            </a>
          </div>
          <p className="mt-4 text-sm text-slate-600">{t('landing.hero.note', { count: plans.free.monthlyCredits })}</p>
        </div>
        <HeroPreview />
      </div>
    </section>
  );
}

/** A static picture of a bulk run, drawn in HTML (no image to load). */
function HeroPreview() {
  const { t } = useTranslation();
  return (
    <figure className="relative mx-auto w-full max-w-lg">
      <div className="rounded-2xl bg-white p-5 shadow-xl ring-1 ring-slate-900/10">
        <div className="flex items-center justify-between">
          <p className="text-sm font-semibold text-slate-900">{t('landing.preview.title')}</p>
          <span className="rounded-full bg-emerald-50 px-2.5 py-0.5 text-xs font-semibold text-emerald-800 ring-1 ring-inset ring-emerald-200">
            {t('landing.preview.progress')}
          </span>
        </div>
        <div className="mt-3 h-2 overflow-hidden rounded-full bg-slate-100">
          <div className="h-full w-3/4 rounded-full bg-gradient-to-r from-indigo-500 to-violet-500" />
        </div>
        <ul className="mt-5 space-y-3">
          {previewTopics.map((topic, i) => (
            <li key={topic} className="flex items-center gap-3 rounded-xl border border-slate-100 bg-slate-50 p-3">
              <span aria-hidden="true" className={`size-2.5 shrink-0 rounded-full ${i === 3 ? 'bg-blue-500' : 'bg-emerald-500'}`} />
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-medium text-slate-900">{t(`landing.preview.topics.${topic}`)}</p>
                <p className="text-xs text-slate-600">
                  {i === 3 ? t('landing.preview.processing') : t('landing.preview.words', { count: 1200 + i * 150 })}
                </p>
              </div>
              <Icon name={i === 3 ? 'pen' : 'check'} className={`size-4 ${i === 3 ? 'text-blue-600' : 'text-emerald-600'}`} />
            </li>
          ))}
        </ul>
      </div>
      <figcaption className="sr-only">{t('landing.preview.caption')}</figcaption>
    </figure>
  );
}

function Features() {
  const { t } = useTranslation();
  return (
    <section id="features" aria-labelledby="features-title" className="scroll-mt-20 py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">{t('landing.features.eyebrow')}</p>
          <h2 id="features-title" className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            {t('landing.features.title')}
          </h2>
          <p className="mt-4 text-lg text-slate-700">{t('landing.features.subtitle')}</p>
        </div>
        <ul className="mt-14 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {features.map(({ key, icon }) => (
            <li key={key} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm transition-shadow hover:shadow-md">
              <span className="flex size-11 items-center justify-center rounded-xl bg-indigo-50 text-indigo-700">
                <Icon name={icon} className="size-6" />
              </span>
              <h3 className="mt-4 text-lg font-semibold text-slate-900">{t(`landing.features.items.${key}.title`)}</h3>
              <p className="mt-2 text-sm leading-6 text-slate-700">{t(`landing.features.items.${key}.body`)}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function HowItWorks() {
  const { t } = useTranslation();
  return (
    <section id="how-it-works" aria-labelledby="how-title" className="scroll-mt-20 bg-slate-50 py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">{t('landing.how.eyebrow')}</p>
          <h2 id="how-title" className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            {t('landing.how.title')}
          </h2>
        </div>
        <ol className="mt-14 grid gap-6 md:grid-cols-2 lg:grid-cols-4">
          {steps.map((step, i) => (
            <li key={step} className="relative rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
              <span
                aria-hidden="true"
                className="flex size-10 items-center justify-center rounded-full bg-indigo-600 text-base font-bold text-white"
              >
                {i + 1}
              </span>
              <h3 className="mt-4 text-lg font-semibold text-slate-900">
                <span className="sr-only">{t('landing.how.stepLabel', { number: i + 1 })} </span>
                {t(`landing.how.steps.${step}.title`)}
              </h3>
              <p className="mt-2 text-sm leading-6 text-slate-700">{t(`landing.how.steps.${step}.body`)}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

function Check({ children }: { children: React.ReactNode }) {
  return (
    <li className="flex gap-3 text-sm leading-6 text-slate-700">
      <Icon name="check" className="mt-0.5 size-5 shrink-0 text-indigo-600" />
      <span>{children}</span>
    </li>
  );
}

// Every amount of the pricing section comes from app/catalogue.ts; the locales hold only the words.
function Credits({ signedIn }: { signedIn: boolean }) {
  const { t, i18n } = useTranslation();
  const usd = (cents: number) => formatUsd(i18n.language, cents / 100);
  return (
    <section id="pricing" aria-labelledby="pricing-title" className="scroll-mt-20 py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">{t('landing.credits.eyebrow')}</p>
          <h2 id="pricing-title" className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            {t('landing.credits.title')}
          </h2>
          <p className="mt-4 text-lg text-slate-700">{t('landing.credits.subtitle')}</p>
        </div>

        <div className="mt-14 grid gap-8 lg:grid-cols-2">
          <article aria-labelledby="monthly-title" className="flex flex-col rounded-3xl border border-slate-200 bg-white p-8 shadow-sm">
            <div className="flex items-center gap-3">
              <span className="flex size-10 items-center justify-center rounded-xl bg-indigo-50 text-indigo-700">
                <Icon name="coins" />
              </span>
              <h3 id="monthly-title" className="text-xl font-semibold text-slate-900">
                {t('landing.credits.monthly.title')}
              </h3>
            </div>
            <p className="mt-3 text-sm leading-6 text-slate-700">{t('landing.credits.monthly.body')}</p>
            <div className="mt-6 grid gap-4 sm:grid-cols-2">
              <div className="rounded-2xl bg-slate-50 p-5 ring-1 ring-slate-200">
                <h4 className="text-base font-semibold text-slate-900">{t('landing.credits.free.name')}</h4>
                <p className="mt-2">
                  <span className="text-3xl font-bold text-slate-900">{usd(plans.free.priceCents)}</span>
                </p>
                <p className="mt-1 text-sm font-medium text-indigo-700">
                  {t('landing.credits.free.credits', { count: plans.free.monthlyCredits })}
                </p>
                <ul className="mt-4 space-y-2">
                  <Check>{t('landing.credits.free.model')}</Check>
                  <Check>{t('landing.credits.free.cost', { count: findModel(DEFAULT_TEXT_MODEL)!.credits })}</Check>
                  <Check>{t('landing.credits.free.support')}</Check>
                </ul>
              </div>
              <div className="relative rounded-2xl bg-indigo-600 p-5 text-white shadow-md">
                <h4 className="flex items-center gap-2 text-base font-semibold">
                  {t('landing.credits.pro.name')}
                  <span className="rounded-full bg-indigo-900 px-2 py-0.5 text-xs font-semibold text-white">
                    {t('landing.credits.pro.popular')}
                  </span>
                </h4>
                <p className="mt-2">
                  <span className="text-3xl font-bold">{usd(plans.pro.priceCents)}</span>
                  <span className="text-sm text-indigo-100"> {t('landing.credits.pro.perMonth')}</span>
                </p>
                <p className="mt-1 text-sm font-medium text-indigo-100">
                  {t('landing.credits.pro.credits', { count: plans.pro.monthlyCredits })}
                </p>
                <ul className="mt-4 space-y-2 text-sm leading-6">
                  {(['models', 'wordpress', 'topups', 'support'] as const).map((k) => (
                    <li key={k} className="flex gap-3">
                      <Icon name="check" className="mt-0.5 size-5 shrink-0 text-indigo-100" />
                      <span>{t(`landing.credits.pro.${k}`, modelCreditRange())}</span>
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          </article>

          <article aria-labelledby="topup-title" className="flex flex-col rounded-3xl border border-slate-200 bg-white p-8 shadow-sm">
            <div className="flex items-center gap-3">
              <span className="flex size-10 items-center justify-center rounded-xl bg-violet-50 text-violet-700">
                <Icon name="sparkles" />
              </span>
              <h3 id="topup-title" className="text-xl font-semibold text-slate-900">
                {t('landing.credits.topUp.title')}
              </h3>
            </div>
            <p className="mt-3 text-sm leading-6 text-slate-700">{t('landing.credits.topUp.body')}</p>
            <ul className="mt-6 grid gap-4 sm:grid-cols-3">
              {topUpPacks.map(({ id, credits, priceCents }) => (
                <li key={id} className="rounded-2xl bg-slate-50 p-5 text-center ring-1 ring-slate-200">
                  <p className="text-2xl font-bold text-slate-900">{credits.toLocaleString('en-US')}</p>
                  <p className="text-sm text-slate-700">{t('landing.credits.topUp.creditsUnit')}</p>
                  <p className="mt-3 text-lg font-semibold text-indigo-700">{usd(priceCents)}</p>
                </li>
              ))}
            </ul>
            <ul className="mt-6 space-y-2">
              <Check>{t('landing.credits.topUp.proOnly')}</Check>
              <Check>{t('landing.credits.topUp.noExpiry')}</Check>
              <Check>{t('landing.credits.topUp.oneTime')}</Check>
            </ul>
          </article>
        </div>

        <p className="mx-auto mt-10 max-w-3xl text-center text-sm text-slate-600">{t('landing.credits.howCreditsWork')}</p>
        {signedIn ? null : (
          <div className="mt-8 flex justify-center">
            <ButtonLink to="/auth?tab=register" size="lg">
              {t('landing.credits.cta')}
            </ButtonLink>
          </div>
        )}
      </div>
    </section>
  );
}

function CallToAction({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="cta-title" className="px-4 pb-20 sm:px-6 sm:pb-28 lg:px-8">
      <div className="mx-auto max-w-7xl rounded-3xl bg-gradient-to-br from-indigo-700 to-violet-800 px-6 py-16 text-center shadow-xl sm:px-16">
        <h2 id="cta-title" className="text-3xl font-bold tracking-tight text-white sm:text-4xl">
          {t('landing.cta.title')}
        </h2>
        <p className="mx-auto mt-4 max-w-2xl text-lg text-indigo-100">{t('landing.cta.body', { count: plans.free.monthlyCredits })}</p>
        <div className="mt-8 flex justify-center">
          {signedIn ? (
            <ButtonLink to="/app" variant="inverse" size="lg">
              {t('landing.cta.dashboard')}
            </ButtonLink>
          ) : (
            <ButtonLink to="/auth?tab=register" variant="inverse" size="lg">
              {t('landing.cta.button')}
            </ButtonLink>
          )}
        </div>
      </div>
    </section>
  );
}

function Footer({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation();
  return (
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto flex max-w-7xl flex-col gap-6 px-4 py-10 sm:px-6 md:flex-row md:items-center md:justify-between lg:px-8">
        <div>
          <p className="flex items-center gap-2 font-bold text-slate-900">
            <Logo className="size-7" />
            {t('appName')}
          </p>
          <p className="mt-2 text-sm text-slate-600">{t('landing.footer.tagline')}</p>
        </div>
        <nav aria-label={t('landing.footer.label')} className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
          <a href="#features" className="text-slate-700 hover:text-slate-900">
            {t('landing.nav.features')}
          </a>
          <a href="#how-it-works" className="text-slate-700 hover:text-slate-900">
            {t('landing.nav.howItWorks')}
          </a>
          <a href="#pricing" className="text-slate-700 hover:text-slate-900">
            {t('landing.nav.pricing')}
          </a>
          {signedIn ? (
            <AppLink to="/app" className="text-slate-700 hover:text-slate-900">
              {t('landing.nav.dashboard')}
            </AppLink>
          ) : (
            <AppLink to="/auth" className="text-slate-700 hover:text-slate-900">
              {t('landing.nav.login')}
            </AppLink>
          )}
        </nav>
        <LegalLinks />
      </div>
    </footer>
  );
}

export default function Landing() {
  const signedIn = Boolean(useRootData()?.user);
  return (
    <>
      <TopBar signedIn={signedIn} />
      <main id="main">
        <Hero signedIn={signedIn} />
        <Features />
        <HowItWorks />
        <Credits signedIn={signedIn} />
        <CallToAction signedIn={signedIn} />
      </main>
      <Footer signedIn={signedIn} />
    </>
  );
}

export const meta: MetaFunction = ({ matches }) => [
  { title: rootT(matches, 'meta.landingTitle') },
  { name: 'description', content: rootT(matches, 'meta.landingDescription', 'common', { count: plans.free.monthlyCredits }) },
];
