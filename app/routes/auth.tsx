import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { plans } from '~/catalogue';
import { AuthShell, BackLink, FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon, type IconName } from '~/components/icons';
import { Button } from '~/components/ui/button';
import { Field } from '~/components/ui/field';
import { detectLanguage, getT } from '~/i18n.server';
import { attemptRegister } from '~/services/auth.server';
import { login } from '~/services/authenticator.server';
import { clientKeyOf, retryAfterHeaders, tooManyMessage } from '~/http/rate-limit-response.server';
import { destroySession, getUser } from '~/services/sessions.server';
import { loginSchema, registerSchema, type Translate } from '~/utils/auth-schemas';
import { HoneypotInputs, isHoneypotFilled } from '~/utils/honeypot';
import { readFormData } from '~/http/json-api.server';
import { rootT } from '~/utils/meta';
import { safeRedirect } from '~/utils/safe-redirect';
import { redirectWithToast } from '~/http/toast.server';
import type { ClientNamespace } from '~/i18n';
import { withNamespaces } from '~/utils/i18n-client';
import { AppLink } from '~/components/ui/app-link';

type Tab = 'login' | 'register';
const tabOf = (value: string | null): Tab => (value === 'register' ? 'register' : 'login');

// The namespaces this page uses in the browser (see pageNamespaces in app/i18n.ts).
export const handle = { i18n: ['common', 'auth'] satisfies ClientNamespace[] };
export const clientLoader = withNamespaces(handle.i18n);

/** A payment return that arrived signed out: the sign-in says why, then goes back to it. */
const isPaymentReturn = (to: string) => /^\/subscription\?(?:[^#]*&)?(?:success|canceled)=true(?:&|$)/.test(to);

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const redirectTo = safeRedirect(url.searchParams.get('redirectTo'), '') ?? '';
  if (await getUser(request)) throw redirect(redirectTo || '/app');
  return json({ tab: tabOf(url.searchParams.get('tab')), redirectTo, paymentReturn: isPaymentReturn(redirectTo) });
}

/** The register tab's form says so (intent=register); any other post is the login form. */
const registerIntent = z.object({ intent: z.literal('register') });

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'auth')) as Translate;

  if (parseWithZod(formData, { schema: registerIntent }).status === 'success') {
    const submission = parseWithZod(formData, { schema: registerSchema(t) });
    if (submission.status !== 'success') return json({ intent: 'register' as const, result: submission.reply() }, { status: 400 });
    const done = () =>
      redirectWithToast('/auth?tab=login', {
        type: 'success',
        title: t('register.successTitle'),
        description: t('register.successDescription'),
      });
    // A bot that filled the honeypot gets the ordinary answer, and nothing happens.
    if (isHoneypotFilled(formData)) return done();
    const outcome = await attemptRegister({
      ...submission.value,
      language: await detectLanguage(request),
      ip: clientKeyOf(context),
    });
    if (outcome.ok) return done();
    if (outcome.reason === 'limited') {
      const message = await tooManyMessage(request, outcome.state);
      return json(
        { intent: 'register' as const, result: submission.reply({ formErrors: [message] }) },
        { status: 429, headers: retryAfterHeaders(outcome.state) },
      );
    }
    return json({ intent: 'register' as const, result: submission.reply({ formErrors: [t('register.emailTaken')] }) }, { status: 409 });
  }

  const submission = parseWithZod(formData, { schema: loginSchema(t) });
  if (submission.status !== 'success') {
    return json({ intent: 'login' as const, result: submission.reply({ hideFields: ['password'] }) }, { status: 400 });
  }
  const invalid = () =>
    json(
      { intent: 'login' as const, result: submission.reply({ formErrors: [t('errors.invalidCredentials')], hideFields: ['password'] }) },
      { status: 401 },
    );
  if (isHoneypotFilled(formData)) return invalid();
  const outcome = await login(submission.value, clientKeyOf(context));
  if (outcome.kind === 'limited') {
    const message = await tooManyMessage(request, outcome.state);
    return json(
      { intent: 'login' as const, result: submission.reply({ formErrors: [message], hideFields: ['password'] }) },
      { status: 429, headers: retryAfterHeaders(outcome.state) },
    );
  }
  if (outcome.kind === 'invalid') return invalid();
  await destroySession(request); // the request's old session, if any, ends
  const { user, setCookie } = outcome;
  return redirectWithToast(
    safeRedirect(submission.value.redirectTo, '/app') ?? '/app',
    {
      type: 'success',
      title: t('login.successTitle'),
      description: user.name ? t('login.welcomeName', { name: user.name }) : t('login.welcome'),
    },
    { headers: { 'Set-Cookie': setCookie } },
  );
}

const features: { key: string; icon: IconName }[] = [
  { key: 'bulk', icon: 'layers' },
  { key: 'models', icon: 'cpu' },
  { key: 'wordpress', icon: 'send' },
];

export default function AuthPage() {
  const { tab, redirectTo, paymentReturn } = useLoaderData<typeof loader>();
  const { t } = useTranslation('auth');
  const query = (next: Tab) => `/auth?tab=${next}${redirectTo ? `&redirectTo=${encodeURIComponent(redirectTo)}` : ''}`;
  return (
    <AuthShell aside={<MarketingPanel />}>
      <BackLink to="/">{t('backToHome')}</BackLink>
      {paymentReturn ? (
        <div
          role="status"
          data-testid="payment-login-required"
          className="mt-6 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-300"
        >
          <p className="font-semibold">{t('paymentReturn.title')}</p>
          <p className="mt-1">{t('paymentReturn.body')}</p>
        </div>
      ) : null}
      <nav aria-label={t('tabs.label')} className="mt-6 grid grid-cols-2 rounded-lg bg-slate-100 p-1">
        {(['login', 'register'] as const).map((name) => (
          <AppLink
            key={name}
            to={query(name)}
            replace
            preventScrollReset
            aria-current={tab === name ? 'page' : undefined}
            className={`rounded-md px-3 py-2 text-center text-sm font-semibold transition-colors focus-visible:outline-2 focus-visible:outline-indigo-600 ${
              tab === name ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900'
            }`}
          >
            {t(`tabs.${name}`)}
          </AppLink>
        ))}
      </nav>
      <div className="mt-6">
        {tab === 'register' ? (
          <RegisterForm formAction={query('register')} />
        ) : (
          <LoginForm formAction={query('login')} redirectTo={redirectTo} />
        )}
      </div>
    </AuthShell>
  );
}

function useSubmitting(intent: Tab) {
  const navigation = useNavigation();
  return navigation.state !== 'idle' && navigation.formMethod === 'POST' && navigation.formData?.get('intent') === intent;
}

function LoginForm({ formAction, redirectTo }: { formAction: string; redirectTo: string }) {
  const { t } = useTranslation('auth');
  const actionData = useActionData<typeof action>();
  const lastResult = actionData?.intent === 'login' ? actionData.result : undefined;
  const [form, fields] = useForm({
    id: 'login',
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: loginSchema(t as Translate) }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  });
  const submitting = useSubmitting('login');
  return (
    <Form method="post" action={formAction} {...getFormProps(form)} className="flex flex-col gap-5">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('login.title')}</h1>
        <p className="mt-1 text-sm text-slate-600">{t('login.subtitle')}</p>
      </div>
      <HoneypotInputs />
      <input type="hidden" name="intent" value="login" />
      {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
      <FormAlert id={form.errorId} title={t('login.failedTitle')} errors={form.errors} />
      <Field
        label={t('login.email')}
        inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email' }}
        errors={fields.email.errors}
      />
      <Field
        label={t('login.password')}
        labelAside={
          <AppLink to="/forgot-password" className="text-sm font-medium text-indigo-700 hover:text-indigo-900 hover:underline">
            {t('login.forgotPassword')}
          </AppLink>
        }
        inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'current-password' }}
        errors={fields.password.errors}
      />
      <Button type="submit" pending={submitting} className="w-full">
        {submitting ? t('login.submitting') : t('login.submit')}
      </Button>
      <p className="text-center text-sm text-slate-600">
        {t('login.noAccount')}{' '}
        <AppLink to="/auth?tab=register" replace className="font-semibold text-indigo-700 hover:underline">
          {t('login.registerLink')}
        </AppLink>
      </p>
    </Form>
  );
}

function RegisterForm({ formAction }: { formAction: string }) {
  const { t } = useTranslation('auth');
  const actionData = useActionData<typeof action>();
  const lastResult = actionData?.intent === 'register' ? actionData.result : undefined;
  const [form, fields] = useForm({
    id: 'register',
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: registerSchema(t as Translate) }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  });
  const submitting = useSubmitting('register');
  return (
    <Form method="post" action={formAction} {...getFormProps(form)} className="flex flex-col gap-5">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('register.title')}</h1>
        <p className="mt-1 text-sm text-slate-600">{t('register.subtitle', { count: plans.free.monthlyCredits })}</p>
      </div>
      <HoneypotInputs />
      <input type="hidden" name="intent" value="register" />
      <FormAlert id={form.errorId} title={t('register.failedTitle')} errors={form.errors} />
      <Field
        label={t('register.name')}
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'name' }}
        errors={fields.name.errors}
      />
      <Field
        label={t('register.email')}
        inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email' }}
        errors={fields.email.errors}
        help={t('register.passwordNote')}
      />
      <Button type="submit" pending={submitting} className="w-full">
        {submitting ? t('register.submitting') : t('register.submit')}
      </Button>
      <p className="text-center text-sm text-slate-600">
        {t('register.haveAccount')}{' '}
        <AppLink to="/auth?tab=login" replace className="font-semibold text-indigo-700 hover:underline">
          {t('register.loginLink')}
        </AppLink>
      </p>
    </Form>
  );
}

function MarketingPanel() {
  const { t } = useTranslation('auth');
  return (
    <section aria-labelledby="auth-hero" className="rounded-2xl bg-gradient-to-br from-indigo-600 to-violet-700 p-8 text-white shadow-sm">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-100">{t('marketing.eyebrow')}</p>
      <h2 id="auth-hero" className="mt-3 text-3xl font-bold tracking-tight">
        {t('marketing.heroTitle')}
      </h2>
      <p className="mt-4 text-indigo-50">{t('marketing.heroText')}</p>
      <ul className="mt-8 flex flex-col gap-5">
        {features.map(({ key, icon }) => (
          <li key={key} className="flex gap-4">
            <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-white/15">
              <Icon name={icon} className="size-5" />
            </span>
            <div>
              <h3 className="font-semibold">{t(`marketing.features.${key}.title`)}</h3>
              <p className="text-sm text-indigo-50">{t(`marketing.features.${key}.text`)}</p>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

// A public page search engines index: its own title and description.
export const meta: MetaFunction = ({ matches }) => [
  { title: rootT(matches, 'meta.auth', 'auth') },
  { name: 'description', content: rootT(matches, 'meta.authDescription', 'auth', { count: plans.free.monthlyCredits }) },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
