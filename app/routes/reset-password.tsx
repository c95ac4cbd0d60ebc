import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import { json, type ActionFunctionArgs, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AuthShell, FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Icon } from '~/components/icons';
import { SuccessPanel } from '~/components/success-panel';
import { Button } from '~/components/ui/button';
import { linkButtonClass } from '~/components/ui/button-link';
import { Field } from '~/components/ui/field';
import { getT } from '~/i18n.server';
import { resetPassword } from '~/services/auth.server';
import { getSession } from '~/services/sessions.server';
import { resetPasswordSchema, type Translate } from '~/utils/auth-schemas';
import { HoneypotInputs, isHoneypotFilled } from '~/utils/honeypot';
import { readFormData } from '~/utils/json-api.server';
import { rootT } from '~/utils/meta';

// The link in the set-password and reset e-mails lands here with ?token=…&email=…. The token is
// checked (and used up) only when the form is submitted, so opening the link changes nothing.

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const token = url.searchParams.get('token') ?? '';
  const email = url.searchParams.get('email') ?? '';
  // The page carries a secret in its URL: keep it out of caches.
  // strict-origin, not no-referrer: under no-referrer browsers send `Origin: null` with the form
  // post, which Remix's CSRF check refuses (500). strict-origin still never sends the token-bearing URL.
  const headers = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'strict-origin' };
  if (!token || !email) return json({ valid: false as const }, { headers });
  return json({ valid: true as const, token, email }, { headers });
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
  // A filled honeypot looks like success and changes nothing.
  if (isHoneypotFilled(formData)) return json({ status: 'success' as const });
  const session = await getSession(request);
  const outcome = await resetPassword({ ...submission.value, keepSessionId: session?.id });
  if (!outcome.ok) {
    const message = outcome.reason === 'expired' ? t('reset.tokenExpired') : t('reset.tokenInvalid');
    return json(
      { status: 'error' as const, result: submission.reply({ formErrors: [message], hideFields: ['password', 'confirmPassword'] }) },
      { status: 400 },
    );
  }
  return json({ status: 'success' as const });
}

export default function ResetPassword() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  if (!data.valid) return <AuthShell>{<InvalidLink />}</AuthShell>;
  if (actionData && 'status' in actionData && actionData.status === 'success') return <AuthShell>{<Success />}</AuthShell>;
  return (
    <AuthShell>
      <ResetForm token={data.token} email={data.email} />
    </AuthShell>
  );
}

function ResetForm({ token, email }: { token: string; email: string }) {
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
  const tokenProblem = form.errors?.some((e) => e === t('reset.tokenExpired') || e === t('reset.tokenInvalid'));
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-5">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('reset.title')}</h1>
        <p className="mt-1 break-words text-sm text-slate-600">{t('reset.subtitle', { email })}</p>
      </div>
      <HoneypotInputs />
      <input type="hidden" name="token" value={token} />
      <input type="hidden" name="email" value={email} />
      <FormAlert id={form.errorId} title={t('reset.failedTitle')} errors={form.errors} />
      {tokenProblem ? (
        <Link to="/forgot-password" className="text-sm font-semibold text-indigo-700 hover:underline">
          {t('reset.requestNew')}
        </Link>
      ) : null}
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
        {submitting ? t('reset.submitting') : t('reset.submit')}
      </Button>
    </Form>
  );
}

function InvalidLink() {
  const { t } = useTranslation('auth');
  return (
    <div className="flex flex-col gap-4">
      <span className="flex size-12 items-center justify-center rounded-full bg-red-50 text-red-600">
        <Icon name="alert" className="size-6" />
      </span>
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('reset.invalidTitle')}</h1>
      <p className="text-sm text-slate-700">{t('reset.invalidText')}</p>
      <Link to="/forgot-password" className={linkButtonClass('primary')}>
        {t('reset.requestNew')}
      </Link>
    </div>
  );
}

function Success() {
  const { t } = useTranslation('auth');
  return (
    <SuccessPanel title={t('reset.successTitle')} text={t('reset.successText')}>
      <Link to="/app" className={linkButtonClass('primary')}>
        {t('reset.continue')}
      </Link>
      <Link to="/auth?tab=login" className="text-center text-sm font-semibold text-indigo-700 hover:underline">
        {t('reset.login')}
      </Link>
    </SuccessPanel>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.reset', 'auth') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
