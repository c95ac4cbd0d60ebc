import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node';
import { json } from '@remix-run/node';
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRouteLoaderData,
  type ShouldRevalidateFunction,
} from '@remix-run/react';
import { useMemo } from 'react';
import { I18nextProvider } from 'react-i18next';
import { clientResources, detectLanguage } from '~/i18n.server';
import { defaultLanguage, type Language } from '~/i18n';
import { getSession } from '~/services/sessions.server';
import tailwind from '~/styles/tailwind.css';
import { createI18n } from '~/utils/i18n-client';
import { useNonce } from '~/utils/nonce';
import { getToast } from '~/utils/toast.server';

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
  const headers = new Headers();
  if (toastCookie) headers.append('Set-Cookie', toastCookie);
  if (session?.setCookie) headers.append('Set-Cookie', session.setCookie);
  return json(
    {
      language,
      resources: clientResources(language),
      user: session ? { name: session.user.name, email: session.user.email, role: session.user.role, subscriptionStatus: session.user.subscriptionStatus } : null,
      toast,
    },
    { headers },
  );
}

// The catalogue and user change only after a form submission (login, logout, language switch).
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, defaultShouldRevalidate }) =>
  formMethod !== undefined && formMethod !== 'GET' ? defaultShouldRevalidate : false;

export type RootData = ReturnType<typeof useLoaderData<typeof loader>>;
export const useRootData = () => useRouteLoaderData<typeof loader>('root');

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<typeof loader>('root');
  const nonce = useNonce();
  const language: Language = data?.language ?? defaultLanguage;
  return (
    <html lang={language} className="h-full">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-full bg-white text-slate-900 antialiased">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const { language, resources } = useLoaderData<typeof loader>();
  const i18n = useMemo(() => createI18n(language, resources), [language, resources]);
  return (
    <I18nextProvider i18n={i18n}>
      <Outlet />
    </I18nextProvider>
  );
}
