import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import { json, redirect, type ActionFunctionArgs, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AuthShell, FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { Button } from '~/components/ui/button';
import { linkButtonClass } from '~/components/ui/button-link';
import { Field } from '~/components/ui/field';
import { getT } from '~/i18n.server';
import { inspectPasswordToken, resetPassword, type TokenPurpose } from '~/services/auth.server';
import { resetPasswordSchema, type Translate } from '~/utils/auth-schemas';
import { HoneypotInputs, isHoneypotFilled } from '~/utils/honeypot';
import { readFormData } from '~/http/json-api.server';
import { rootT } from '~/utils/meta';
import { redirectWithToast } from '~/http/toast.server';
import type { ClientNamespace } from '~/i18n';
import { withNamespaces } from '~/utils/i18n-client';
import { AppLink } from '~/components/ui/app-link';

// The link in the set-password and reset e-mails lands here with ?token=…&email=…. The token is
// checked (and used up) only when the form is submitted, so opening the link changes nothing.

// The namespaces this page uses in the browser (see pageNamespaces in app/i18n.ts).
export const handle = { i18n: ['common', 'auth'] satisfies ClientNamespace[] };
export const clientLoader = withNamespaces(handle.i18n);

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const token = url.searchParams.get('token') ?? '';
  const email = url.searchParams.get('email') ?? '';
  // The page carries a secret in its URL: keep it out of caches.
  const headers = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'strict-origin' };
  if (!token || !email) return json({ link: 'missing' as const }, { headers });
  // Looked at, not used up: a used link shows no form, a new account's link says "Set your password".
  const inspected = await inspectPasswordToken({ token, email });
  if (inspected.state !== 'valid') return json({ link: inspected.state }, { headers });
  return json({ link: 'valid' as const, purpose: inspected.purpose, token, email }, { headers });
}

export const headers: HeadersFunction = ({ loaderHeaders }) => ({
  'Cache-Control': loaderHeaders.get('Cache-Control') ?? 'no-store',
  'Referrer-Policy': loaderHeaders.get('Referrer-Policy') ?? 'strict-origin',
});

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'auth')) as Translate;
  const submission = parseWithZod(formData, { schema: resetPasswordSchema(t) });
  if (submission.status !== 'success') {
    // A missing token or e-mail is the link's fault, not a field the reader can fix.
    const linkBroken = Boolean(submission.error?.token || submission.error?.email);
    return json(
      {
        status: 'error' as const,
        result: submission.reply({
          hideFields: ['password', 'confirmPassword'],
          ...(linkBroken ? { formErrors: [t('errors.invalidResetParams')] } : {}),
        }),
      },
      { status: 400 },
    );
  }
  // A filled honeypot changes nothing and goes to the login page.
  if (isHoneypotFilled(formData)) return redirect('/auth?tab=login');
  const outcome = await resetPassword(submission.value);
  if (!outcome.ok) return json({ status: 'link' as const, link: outcome.reason }, { status: 400 });
  // The link proved the address: signed in, to the app, with the welcome toast.
  const words = outcome.purpose === 'set-password' ? 'set' : 'reset';
  return redirectWithToast(
    '/app',
    { type: 'success', title: t(`${words}.toastTitle`), description: t(`${words}.toastText`) },
    { headers: { 'Set-Cookie': outcome.setCookie } },
  );
}

export default function ResetPassword() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // The token was refused on submit (used in another tab meanwhile, or expired): no form.
  if (actionData?.status === 'link') return <AuthShell>{<LinkProblem link={actionData.link} />}</AuthShell>;
  if (data.link !== 'valid') {
    // A form post with a field error still shows the form (e.g. a link whose token is not ours to check).
    if (actionData?.status !== 'error') return <AuthShell>{<LinkProblem link={data.link} />}</AuthShell>;
    return (
      <AuthShell>
        <ResetForm token="" email="" purpose="reset-password" />
      </AuthShell>
    );
  }
  return (
    <AuthShell>
      <ResetForm token={data.token} email={data.email} purpose={data.purpose} />
    </AuthShell>
  );
}

function ResetForm({ token, email, purpose }: { token: string; email: string; purpose: TokenPurpose }) {
  const words = purpose === 'set-password' ? 'set' : 'reset';
  const { t } = useTranslation('auth');
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const submitting = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const [form, fields] = useForm({
    id: 'reset-password',
    lastResult: actionData && 'result' in actionData ? actionData.result : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: resetPasswordSchema(t as Translate) }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-5">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t(`${words}.title`)}</h1>
        <p className="mt-1 break-words text-sm text-slate-600">{t(`${words}.subtitle`, { email })}</p>
      </div>
      <HoneypotInputs />
      <input type="hidden" name="token" value={token} />
      <input type="hidden" name="email" value={email} />
      <FormAlert id={form.errorId} title={t('reset.failedTitle')} errors={form.errors} />
      <Field
        label={t('reset.password')}
        inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }}
        errors={fields.password.errors}
      />
      <Field
        label={t('reset.confirmPassword')}
        inputProps={{ ...getInputProps(fields.confirmPassword, { type: 'password' }), autoComplete: 'new-password' }}
        errors={fields.confirmPassword.errors}
      />
      <Button type="submit" pending={submitting} className="w-full">
        {submitting ? t('reset.submitting') : t(`${words}.submit`)}
      </Button>
    </Form>
  );
}

function LinkProblem({ link }: { link: 'missing' | 'invalid' | 'expired' }) {
  const { t } = useTranslation('auth');
  const title = link === 'missing' ? t('reset.invalidTitle') : link === 'expired' ? t('reset.expiredTitle') : t('reset.usedTitle');
  const text = link === 'missing' ? t('reset.invalidText') : link === 'expired' ? t('reset.tokenExpired') : t('reset.tokenInvalid');
  return (
    <div className="flex flex-col gap-4" data-testid="reset-link-problem">
      <span className="flex size-12 items-center justify-center rounded-full bg-red-50 text-red-600">
        <Icon name="alert" className="size-6" />
      </span>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
      <p className="text-sm text-slate-700">{text}</p>
      <AppLink to="/forgot-password" className={linkButtonClass('primary')}>
        {t('reset.requestNew')}
      </AppLink>
      <AppLink to="/auth?tab=login" className="text-center text-sm font-semibold text-indigo-700 hover:underline">
        {t('reset.login')}
      </AppLink>
    </div>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  { title: rootT(matches, data?.link === 'valid' && data.purpose === 'set-password' ? 'meta.set' : 'meta.reset', 'auth') },
  { name: 'description', content: rootT(matches, 'meta.resetDescription', 'auth') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
