import { getCollectionProps, getFormProps, getInputProps, useForm } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { AppShell } from '~/components/app-shell';
import { FormAlert } from '~/components/auth-shell';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import { CopyButton } from '~/components/ui/copy-button';
import { useDomId } from '~/components/ui/use-dom-id';
import { ErrorList, Field } from '~/components/ui/field';
import { namespaces, type ClientNamespace } from '~/i18n';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { createEndpoint, deleteEndpoint, enableEndpoint, listEndpoints, rotateSecret, sendTestEvent } from '~/services/webhooks.server';
import { explainError } from '~/http/errors.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import { readFormData } from '~/http/json-api.server';
import { redirectWithToast } from '~/http/toast.server';
import { withNamespaces } from '~/utils/i18n-client';
import type { Translate } from '~/utils/auth-schemas';
import { rootT } from '~/utils/meta';
import { formatDateTime, useTimeZone } from '~/utils/time-zone';
import { deliveryFailureText, webhookEndpointSchema, webhookEventTypes } from '~/utils/webhook-events';
import { AppLink } from '~/components/ui/app-link';

// Webhook endpoints: add, delete, rotate the secret, send a test event, turn a disabled
// one on again, and each one's delivery log. Every button is a form post; a new or rotated secret
// comes back in the action's answer (shown once, never stored in the clear), everything else
// redirects with a toast.

const PAGE = '/settings/webhooks';

// The page's own words (developer) are opt-in; the shell (header, settings dialog) uses the rest.
export const handle = { i18n: [...namespaces] satisfies ClientNamespace[] };
export const clientLoader = withNamespaces(handle.i18n);

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  const endpoints = await listEndpoints(userId);
  return json({ user, account, endpoints }, { headers: privatePageHeaders });
}

const intents = z.enum(['create', 'delete', 'rotate', 'test', 'enable']);

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readFormData(request);
  if (formData instanceof Response) throw formData;
  const t = (await getT(request, 'developer')) as Translate;
  const intent = intents.safeParse(formData.get('intent'));
  if (!intent.success) return redirectWithToast(PAGE, { type: 'error', title: t('webhooks.toast.failed') });
  const endpointId = String(formData.get('endpointId') ?? '');
  // A refusal in the reader's words (anything else is a bug, rethrown).
  const failed = async (error: unknown) => ({ title: t('webhooks.toast.failed'), description: (await explainError(error, t)).message });
  try {
    switch (intent.data) {
      case 'create': {
        const submission = parseWithZod(formData, { schema: webhookEndpointSchema(t) });
        if (submission.status !== 'success') return json({ result: submission.reply(), secret: null }, { status: 400 });
        try {
          const created = await createEndpoint(user.id, submission.value);
          return json({ result: submission.reply({ resetForm: true }), secret: { url: submission.value.url, value: created.secret } });
        } catch (error) {
          const { description } = await failed(error);
          return json({ result: submission.reply({ formErrors: [description] }), secret: null }, { status: 400 });
        }
      }
      case 'rotate': {
        const [endpoint] = (await listEndpoints(user.id)).filter((e) => e.id === endpointId);
        const { secret } = await rotateSecret(user.id, endpointId);
        return json({ result: null, secret: { url: endpoint?.url ?? '', value: secret } });
      }
      case 'delete':
        await deleteEndpoint(user.id, endpointId);
        return redirectWithToast(PAGE, { type: 'success', title: t('webhooks.toast.deleted') });
      case 'test':
        await sendTestEvent(user.id, endpointId);
        return redirectWithToast(PAGE, {
          type: 'success',
          title: t('webhooks.toast.testSent'),
          description: t('webhooks.toast.testSentBody'),
        });
      case 'enable':
        await enableEndpoint(user.id, endpointId);
        return redirectWithToast(PAGE, { type: 'success', title: t('webhooks.toast.enabled') });
    }
  } catch (error) {
    return redirectWithToast(PAGE, { type: 'error', ...(await failed(error)) });
  }
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;
type Endpoint = LoaderData['endpoints'][number];

export default function WebhooksPage() {
  const { user, account, endpoints } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation('developer');
  const secret = actionData && 'secret' in actionData ? actionData.secret : null;
  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <AppLink to="/app?settings=1" className="text-sm font-medium text-indigo-700 hover:underline">
          {t('webhooks.backToSettings')}
        </AppLink>
        <AppLink to="/api/docs" reloadDocument className="text-sm font-medium text-indigo-700 hover:underline">
          {t('webhooks.docsLink')}
        </AppLink>
      </div>
      <section
        aria-labelledby="webhooks-heading"
        className="mx-auto mt-4 max-w-4xl rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
      >
        <h1 id="webhooks-heading" className="text-xl font-semibold text-slate-900">
          {t('webhooks.title')}
        </h1>
        <p className="mt-1 text-sm text-slate-600">{t('webhooks.description')}</p>
        {secret ? (
          <div
            role="status"
            data-testid="webhook-secret"
            className="mt-4 rounded-lg bg-amber-50 p-4 text-sm text-amber-950 ring-1 ring-amber-200"
          >
            <p className="font-semibold">{t('webhooks.secretTitle')}</p>
            <p className="mt-1">{t('webhooks.secretBody')}</p>
            <SecretField url={secret.url} value={secret.value} />
          </div>
        ) : null}
        <AddEndpointForm />
        <h2 className="mt-8 text-base font-semibold text-slate-900">{t('webhooks.listTitle')}</h2>
        {endpoints.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">{t('webhooks.none')}</p>
        ) : (
          <ul className="mt-3 flex flex-col gap-6">
            {endpoints.map((endpoint) => (
              <EndpointItem key={endpoint.id} endpoint={endpoint} />
            ))}
          </ul>
        )}
      </section>
    </AppShell>
  );
}

/** The new secret, selected on focus, with a Copy button once the page's script runs (as a new API token has). */
function SecretField({ url, value }: { url: string; value: string }) {
  const { t } = useTranslation('developer');
  const field = useRef<HTMLInputElement>(null);
  const id = useDomId();
  return (
    <div className="mt-2">
      <label htmlFor={id} className="block text-xs font-medium">
        {t('webhooks.secretFor', { url })}
      </label>
      <div className="mt-1 flex gap-2">
        <input
          ref={field}
          id={id}
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          className="block w-full rounded-md border border-amber-300 bg-white px-2 py-1 font-mono text-sm"
          data-testid="webhook-secret-value"
        />
        <CopyButton text={value} field={field} label={t('webhooks.copySecret')} copiedLabel={t('webhooks.copiedSecret')} />
      </div>
    </div>
  );
}

function AddEndpointForm() {
  const { t } = useTranslation('developer');
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const adding = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'create';
  const [form, fields] = useForm({
    id: 'webhook-create',
    lastResult: actionData && 'result' in actionData ? actionData.result : undefined,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: webhookEndpointSchema(t as Translate) }),
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
  });
  const checkboxes = getCollectionProps(fields.events, { type: 'checkbox', options: [...webhookEventTypes] });
  return (
    <Form
      method="post"
      action={PAGE}
      {...getFormProps(form)}
      className="mt-6 flex flex-col gap-4 rounded-xl bg-slate-50 p-4 ring-1 ring-slate-200"
    >
      <h2 className="text-base font-semibold text-slate-900">{t('webhooks.addTitle')}</h2>
      <FormAlert id={form.errorId} title={t('webhooks.toast.failed')} errors={form.errors} />
      <Field
        label={t('webhooks.url')}
        inputProps={{
          ...getInputProps(fields.url, { type: 'url' }),
          placeholder: 'https://example.com/postforge-hook',
          autoComplete: 'url',
        }}
        errors={fields.url.errors}
        help={t('webhooks.urlHelp')}
      />
      <fieldset aria-describedby={fields.events.errors?.length ? fields.events.errorId : undefined}>
        <legend className="text-sm font-medium text-slate-800">{t('webhooks.events')}</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {checkboxes.map(({ key, ...props }) => (
            <label key={key} className="flex items-start gap-2 text-sm text-slate-800">
              {/* Conform names a choice's id after its value; an event name's dot is no id character. */}
              <input {...props} id={props.id.replaceAll('.', '-')} className="mt-0.5 size-4 rounded border-slate-300 text-indigo-600" />
              <span>
                <code className="text-xs text-slate-600">{props.value}</code>
                <br />
                {t(`webhooks.eventNames.${props.value}`)}
              </span>
            </label>
          ))}
        </div>
        <ErrorList id={fields.events.errorId} errors={fields.events.errors} className="mt-2" />
      </fieldset>
      <div className="flex justify-end">
        <Button type="submit" name="intent" value="create" pending={adding}>
          {adding ? t('webhooks.adding') : t('webhooks.add')}
        </Button>
      </div>
    </Form>
  );
}

function EndpointItem({ endpoint }: { endpoint: Endpoint }) {
  const { t, i18n } = useTranslation('developer');
  const timeZone = useTimeZone();
  const when = (iso: string) => formatDateTime(iso, i18n.language, timeZone);
  const button = (intent: string, label: string, variant: 'secondary' | 'ghost' | 'destructive' = 'secondary', confirm?: string) => (
    <Form method="post" action={PAGE} onSubmit={confirm ? (e) => (window.confirm(confirm) ? undefined : e.preventDefault()) : undefined}>
      <input type="hidden" name="endpointId" value={endpoint.id} />
      <Button type="submit" name="intent" value={intent} variant={variant} size="sm">
        {label}
      </Button>
    </Form>
  );
  return (
    <li className="rounded-xl p-4 ring-1 ring-slate-200" data-testid="webhook-endpoint">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="break-all font-mono text-sm text-slate-900">{endpoint.url}</p>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
            <Badge tone={endpoint.enabled ? 'success' : 'warning'}>
              {endpoint.enabled ? t('webhooks.active') : t('webhooks.disabled')}
            </Badge>
            <span>{t('webhooks.secretHint', { hint: endpoint.secretHint })}</span>
            {endpoint.events.map((e) => (
              <code key={e} className="rounded bg-slate-100 px-1">
                {e}
              </code>
            ))}
          </p>
          {endpoint.disabledAt ? (
            <p className="mt-1 text-xs text-red-700">{t('webhooks.disabledSince', { date: when(endpoint.disabledAt) })}</p>
          ) : endpoint.failingSince ? (
            <p className="mt-1 text-xs text-amber-700">{t('webhooks.failingSince', { date: when(endpoint.failingSince) })}</p>
          ) : null}
        </div>
        <div className="flex flex-wrap gap-2">
          {endpoint.enabled ? button('test', t('webhooks.sendTest')) : button('enable', t('webhooks.enable'))}
          {button('rotate', t('webhooks.rotate'), 'ghost')}
          {button('delete', t('webhooks.delete'), 'destructive', t('webhooks.deleteConfirm'))}
        </div>
      </div>
      <h3 className="mt-4 text-sm font-semibold text-slate-900">{t('webhooks.log')}</h3>
      {endpoint.deliveries.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">{t('webhooks.logEmpty')}</p>
      ) : (
        <div className="mt-2 overflow-x-auto">
          <table className="w-full text-left text-xs" data-testid="webhook-log">
            <thead className="text-slate-600">
              <tr>
                {(['event', 'status', 'attempts', 'response', 'latency', 'nextRetry', 'created'] as const).map((k) => (
                  <th key={k} scope="col" className="px-2 py-1 font-medium">
                    {t(`webhooks.col.${k}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {endpoint.deliveries.map((d) => (
                <tr key={d.id} className="border-t border-slate-100">
                  <td className="px-2 py-1">
                    <code>{d.type}</code>
                    <br />
                    <span className="text-slate-500">{d.eventId}</span>
                  </td>
                  <td className="px-2 py-1">
                    <Badge tone={d.status === 'delivered' ? 'success' : d.status === 'failed' ? 'warning' : 'neutral'}>
                      {t(`webhooks.status.${d.status}`)}
                    </Badge>
                  </td>
                  <td className="px-2 py-1 tabular-nums">{d.attempts}</td>
                  <td className="px-2 py-1" data-testid="webhook-response" data-error-code={d.lastErrorCode ?? undefined}>
                    {d.lastStatus ?? (d.lastErrorCode ? deliveryFailureText(t, d.lastErrorCode, d.lastErrorParams) : '—')}
                  </td>
                  <td className="px-2 py-1 tabular-nums">
                    {d.lastLatencyMs === null ? '—' : t('webhooks.ms', { value: d.lastLatencyMs })}
                  </td>
                  <td className="px-2 py-1">{d.nextAttemptAt ? when(d.nextAttemptAt) : '—'}</td>
                  <td className="px-2 py-1">{when(d.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}

export const meta: MetaFunction = ({ matches }) => [{ title: rootT(matches, 'meta.webhooksTitle', 'developer') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
