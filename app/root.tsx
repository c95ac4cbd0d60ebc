import { useAppLinks } from '~/components/ui/app-link';
import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { json } from '@remix-run/node';
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useLocation,
  useMatches,
  useNavigation,
  useRevalidator,
  useRouteLoaderData,
  type ShouldRevalidateFunction,
} from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { I18nextProvider } from 'react-i18next';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Toaster } from '~/components/ui/toast';
import { catalogueVersion, detectLanguage } from '~/i18n.server';
import { defaultLanguage, languageCookieName, pageNamespaces, type Language } from '~/i18n';
import { getSession } from '~/services/sessions.server';
import { getSettings, settingsView } from '~/services/user-settings.server';
import { SETTINGS_PARAM } from '~/components/settings-param';
import { themeCookieHeader, themeFromCookie } from '~/runtime/theme.server';
import tailwind from '~/styles/tailwind.css';
import { ensureNamespaces, getI18n, usesEveryNamespace } from '~/utils/i18n-client';
import { useNonce } from '~/utils/nonce';
import { TIME_ZONE_COOKIE, timeZoneScript } from '~/utils/time-zone';
import { timeZoneChoices } from '~/utils/zoned-time';
import { readerZone } from '~/http/time-zone.server';
import { getToast } from '~/http/toast.server';

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: tailwind },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const [language, session, { toast, setCookie: toastCookie }] = await Promise.all([
    detectLanguage(request),
    getSession(request),
    getToast(request),
  ]);
  const { timeZone, known: timeZoneKnown } = await readerZone(request, session?.user ?? null);
  const headers = new Headers();
  if (toastCookie) headers.append('Set-Cookie', toastCookie);
  if (session?.setCookie) headers.append('Set-Cookie', session.setCookie);
  // Dark mode on the first paint: the cookie mirrors the user's setting; a browser without it gets
  // the setting from the database once (and the cookie).
  let theme = themeFromCookie(request);
  if (session && theme === null) {
    theme = (await getSettings(session.user.id)).darkMode ? 'dark' : 'light';
    headers.append('Set-Cookie', themeCookieHeader(theme === 'dark'));
  }
  // The settings dialog (?settings=1, rendered by the server so it works without JavaScript).
  const settingsOpen = session && new URL(request.url).searchParams.get(SETTINGS_PARAM) === '1';
  return json(
    {
      language,
      timeZone,
      timeZoneKnown,
      catalogueVersion: catalogueVersion(language),
      theme: theme ?? 'light',
      settings: settingsOpen ? await settingsView(session.user.id) : null,
      // The settings dialog's time zone picker (its labels made here, so the browser renders the same).
      timeZones: settingsOpen ? timeZoneChoices(new Date()) : null,
      user: session
        ? {
            name: session.user.name,
            email: session.user.email,
            role: session.user.role,
            subscriptionStatus: session.user.subscriptionStatus,
          }
        : null,
      toast,
    },
    { headers },
  );
}

// Set in the browser when the page has just learnt the reader's zone (see useTimeZoneLearnt).
let zoneLearnt = false;

// The catalogue and user change only after a form submission (login, logout, language switch).
// Opening the settings dialog loads its data; so does learning the reader's time zone.
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, defaultShouldRevalidate, currentUrl, nextUrl }) => {
  if (zoneLearnt) {
    zoneLearnt = false;
    return true;
  }
  if (formMethod !== undefined && formMethod !== 'GET') return defaultShouldRevalidate;
  return nextUrl.searchParams.get(SETTINGS_PARAM) === '1' && currentUrl.searchParams.get(SETTINGS_PARAM) !== '1';
};

export type RootData = ReturnType<typeof useLoaderData<typeof loader>>;
export const useRootData = () => useRouteLoaderData<typeof loader>('root');

const PAGEVIEW_URL = '/api/analytics/pageview';

/**
 * Every route change reports a page view. sendBeacon never delays navigation; the body is
 * JSON in a text/plain Blob (a CORS-safelisted type that every browser's sendBeacon accepts).
 */
function usePageViews() {
  const location = useLocation();
  const previous = useRef<string | null>(null);
  useEffect(() => {
    const path = location.pathname;
    const referrer = previous.current ?? document.referrer;
    previous.current = window.location.origin + path;
    const body = JSON.stringify({ path, referrer });
    try {
      const blob = new Blob([body], { type: 'text/plain;charset=UTF-8' });
      if (!navigator.sendBeacon?.(PAGEVIEW_URL, blob)) {
        void fetch(PAGEVIEW_URL, { method: 'POST', body, keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(() => {});
      }
    } catch {
      // Analytics must never break the page.
    }
  }, [location.pathname]);
}

/** The choice also lives in the browser's storage under `language`. */
function useLanguageMirror(language: Language) {
  useEffect(() => {
    try {
      localStorage.setItem(languageCookieName, language);
    } catch {
      // Storage may be unavailable; the cookie is what the server reads.
    }
  }, [language]);
}

/** A loading indicator while the next page's data (the user, the account) is on its way. */
function NavigationProgress({ label }: { label: string }) {
  const navigation = useNavigation();
  if (navigation.state !== 'loading') return null;
  return (
    <div role="progressbar" aria-label={label} className="fixed inset-x-0 top-0 z-[70] h-1 overflow-hidden bg-indigo-100">
      <div className="h-full w-1/3 animate-pulse rounded-full bg-indigo-600" />
    </div>
  );
}

/**
 * A page loads only its routes' namespaces (see pageNamespaces). A route that declares none and is
 * reached by client navigation needs the rest: fetched as soon as a navigation starts, in parallel
 * with the route's data, and the page re-renders when it arrives.
 */
function useRestOfCatalogue(language: Language) {
  const navigation = useNavigation();
  useEffect(() => {
    if (navigation.state !== 'idle' && !usesEveryNamespace(language)) void ensureNamespaces(language);
  }, [navigation.state, language]);
}

/**
 * A signed-in user without a time zone whose browser had not told its zone yet got this page in UTC
 * (the server and the hydration alike). The head script has now put the zone in the cookie: the
 * page's data is loaded once more, and the server keeps that zone as the user's.
 */
function useTimeZoneLearnt(known: boolean) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (known || !document.cookie.split(/;\s*/).some((c) => c.startsWith(`${TIME_ZONE_COOKIE}=`))) return;
    zoneLearnt = true;
    revalidator.revalidate();
    // Once per page load: the next answer knows the zone.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [known]);
}

function ClientEffects({ language, timeZoneKnown }: { language: Language; timeZoneKnown: boolean }) {
  usePageViews();
  useLanguageMirror(language);
  useRestOfCatalogue(language);
  useTimeZoneLearnt(timeZoneKnown);
  useAppLinks();
  return null;
}

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<typeof loader>('root');
  const nonce = useNonce();
  const language: Language = data?.language ?? defaultLanguage;
  // Synchronous and identical on the server and at hydration (the catalogue script below runs before
  // the app's modules). It wraps the error boundary too, so error pages are translated.
  const i18n = getI18n(language);
  const pageNs = pageNamespaces(useMatches());
  return (
    <html lang={language} className={`h-full motion-safe:scroll-smooth${data?.theme === 'dark' ? ' dark' : ''}`}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: timeZoneScript }} />
      </head>
      <body className="min-h-full bg-white text-slate-900 antialiased dark:bg-slate-50">
        <I18nextProvider i18n={i18n}>
          <a
            href="#main"
            className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-[70] focus:rounded-lg focus:bg-white focus:px-4 focus:py-2 focus:text-sm focus:font-semibold focus:text-indigo-700 focus:shadow-lg"
          >
            {i18n.t('skipToContent', 'Skip to content')}
          </a>
          <NavigationProgress label={i18n.t('loading', 'Loading…')} />
          {children}
          <Toaster toast={data?.toast ?? null} />
          <ClientEffects language={language} timeZoneKnown={data?.timeZoneKnown ?? true} />
        </I18nextProvider>
        {data?.catalogueVersion ? (
          <script nonce={nonce} src={`/locales/${language}?ns=${pageNs.join(',')}&v=${data.catalogueVersion}`} />
        ) : null}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
