import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { requireUser } from '~/services/sessions.server';
import { loadEnv } from '~/runtime/env.server';

// The hop to Stripe's hosted pages (Checkout, the customer portal) after a form post: a page of our
// own that moves on by script, or by meta refresh without JavaScript (a form's redirect straight to
// another origin would be refused by the CSP's form-action). Only Stripe's origins are accepted.
function allowedOrigins(): Set<string> {
  const origins = new Set(['https://checkout.stripe.com', 'https://billing.stripe.com']);
  const base = loadEnv().STRIPE_API_BASE;
  if (base) origins.add(new URL(base).origin);
  return origins;
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  const to = new URL(request.url).searchParams.get('to') ?? '';
  let target: URL;
  try {
    target = new URL(to);
  } catch {
    throw redirect('/subscription');
  }
  if (!allowedOrigins().has(target.origin)) throw redirect('/subscription');
  return json({ to: target.toString() }, { headers: { 'Cache-Control': 'private, no-store' } });
}

export const meta: MetaFunction<typeof loader> = ({ data }) => (data ? [{ httpEquiv: 'refresh', content: `0;url=${data.to}` }] : []);

export default function StripeRedirect() {
  const { to } = useLoaderData<typeof loader>();
  const { t } = useTranslation('billing');
  useEffect(() => {
    window.location.replace(to);
  }, [to]);
  return (
    <main id="main" className="mx-auto max-w-lg px-4 py-16 text-center">
      <h1 className="text-2xl font-bold text-slate-900">{t('redirect.title')}</h1>
      <p className="mt-2 text-slate-700">{t('redirect.body')}</p>
      <a href={to} className="mt-6 inline-block font-semibold text-indigo-700 underline" data-testid="continue-to-stripe">
        {t('redirect.continue')}
      </a>
    </main>
  );
}
