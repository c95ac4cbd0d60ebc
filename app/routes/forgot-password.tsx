import { getFormProps, getInputProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { AuthShell, BackLink, FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { SuccessPanel } from '~/components/success-panel';
import { Button } from '~/components/ui/button';
import { Field } from '~/components/ui/field';
import { detectLanguage, getT } from '~/i18n.server';
import { attemptPasswordResetRequest } from '~/services/auth.server';
import { clientKeyOf, retryAfterHeaders, tooManyMessage } from '~/http/rate-limit-response.server';
import { forgotPasswordSchema, type Translate } from '~/utils/auth-schemas';
import { HoneypotInputs, isHoneypotFilled } from '~/utils/honeypot';
import { readFormData } from '~/http/json-api.server';
import { rootT } from '~/utils/meta';
import type { ClientNamespace } from '~/i18n';
import { withNamespaces } from '~/utils/i18n-client';

// The sent state is a separate URL (post/redirect/get), and it reads the same whether or not the
// address has an account.
const SENT_URL = '/forgot-password?sent=1';

// The namespaces this page uses in the browser (see pageNamespaces in app/i18n.ts).
export const handle = { i18n: ['common', 'auth'] satisfies ClientNamespace[] };
export const clientLoader = withNamespaces(handle.i18n);

export async function loader({ request }: LoaderFunctionArgs) {
  return json({ sent: new URL(request.url).searchParams.get('sent') === '1' });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'auth')) as Translate;
  const submission = parseWithZod(formData, { schema: forgotPasswordSchema(t) });
  if (submission.status !== 'success') return json({ result: submission.reply() }, { status: 400 });
  if (isHoneypotFilled(formData)) return redirect(SENT_URL);
  const outcome = await attemptPasswordResetRequest({
    email: submission.value.email,
    language: await detectLanguage(request),
    ip: clientKeyOf(context),
  });
  if (!outcome.ok) {
    const message = await tooManyMessage(request, outcome.state);
    return json({ result: submission.reply({ formErrors: [message] }) }, { status: 429, headers: retryAfterHeaders(outcome.state) });
  }
  return redirect(SENT_URL);
}

export default function ForgotPassword() {
  const { sent } = useLoaderData<typeof loader>();
  return <AuthShell>{sent ? <SentState /> : <RequestForm />}</AuthShell>;
}

function RequestForm() {
  const { t } = useTranslation('auth');
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const submitting = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const [form, fields] = useForm({
    id: 'forgot-password',
    lastResult: actionData && 'result' in actionData ? actionData.result : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: forgotPasswordSchema(t as Translate) }),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
  });
  return (
    <Form method="post" action="/forgot-password" {...getFormProps(form)} className="flex flex-col gap-5">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{t('forgot.title')}</h1>
        <p className="mt-1 text-sm text-slate-600">{t('forgot.subtitle')}</p>
      </div>
      <HoneypotInputs />
      <FormAlert id={form.errorId} title={t('forgot.failedTitle')} errors={form.errors} />
      <Field
        label={t('forgot.email')}
        inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email' }}
        errors={fields.email.errors}
      />
      <Button type="submit" pending={submitting} className="w-full">
        {submitting ? t('forgot.submitting') : t('forgot.submit')}
      </Button>
      <BackLink to="/auth?tab=login">{t('forgot.backToLogin')}</BackLink>
    </Form>
  );
}

function SentState() {
  const { t } = useTranslation('auth');
  return (
    <SuccessPanel title={t('forgot.sentTitle')} text={t('forgot.sentText')}>
      <p className="text-sm text-slate-600">{t('forgot.spamHint')}</p>
      <BackLink to="/auth?tab=login">{t('forgot.backToLogin')}</BackLink>
    </SuccessPanel>
  );
}

export const meta: MetaFunction = ({ matches }) => [
  { title: rootT(matches, 'meta.forgot', 'auth') },
  { name: 'description', content: rootT(matches, 'meta.forgotDescription', 'auth') },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
