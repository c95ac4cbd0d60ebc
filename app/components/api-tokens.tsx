import { Form, useNavigation } from '@remix-run/react';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, buttonClass } from '~/components/ui/button';
import { CopyButton } from '~/components/ui/copy-button';
import { inputClass } from '~/components/ui/input';
import type { ApiToken } from '~/services/api-tokens.server';
import { TOKEN_EXPIRY_DAYS, TOKEN_NAME_MAX } from '~/utils/api-token-form';
import { formatDateTime, useTimeZone } from '~/utils/time-zone';
import { useDomId } from '~/components/ui/use-dom-id';
import { AppLink } from '~/components/ui/app-link';

export type CreateResult = { ok: true; token: string; name: string } | { ok: false; field: 'name' | 'expiresInDays'; error: string };

/** The API tokens page: what tokens are for, the new token (once), the create form and the list. */
export function ApiTokensPanel({ tokens, result }: { tokens: ApiToken[]; result: CreateResult | null }) {
  const { t } = useTranslation('tokens');
  return (
    <div className="mx-auto mt-4 flex max-w-3xl flex-col gap-6">
      <AppLink to="/app?settings=1" className="inline-flex items-center gap-1 text-sm font-medium text-indigo-700 hover:underline">
        {t('page.backToSettings')}
      </AppLink>
      <section aria-labelledby="tokens-heading" className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h1 id="tokens-heading" className="text-xl font-semibold text-slate-900">
          {t('page.title')}
        </h1>
        <p className="mt-2 text-sm text-slate-700">{t('page.description')}</p>
        <p className="mt-2 text-sm text-slate-700">{t('page.prefixNote')}</p>
        <p className="mt-2 text-sm text-slate-600">{t('page.sessionOnlyNote')}</p>
        {result?.ok ? <NewToken token={result.token} name={result.name} /> : null}
        <CreateTokenForm error={result && !result.ok ? result : null} />
      </section>
      <TokenList tokens={tokens} />
    </div>
  );
}

function NewToken({ token, name }: { token: string; name: string }) {
  const { t } = useTranslation('tokens');
  const input = useRef<HTMLInputElement>(null);
  const id = useDomId();
  return (
    <div role="status" className="mt-4 rounded-xl bg-emerald-50 p-4 ring-1 ring-emerald-200" data-testid="new-token">
      <label htmlFor={id} className="text-sm font-semibold text-emerald-900">
        {t('page.createdHeading', { name })}
      </label>
      <p className="mt-1 text-sm text-emerald-900">{t('page.createdNote')}</p>
      <div className="mt-2 flex gap-2">
        <input
          ref={input}
          id={id}
          readOnly
          value={token}
          onFocus={(e) => e.currentTarget.select()}
          className={`${inputClass} font-mono text-xs`}
          data-testid="new-token-value"
        />
        <CopyButton text={token} field={input} label={t('page.copy')} copiedLabel={t('page.copied')} />
      </div>
    </div>
  );
}

function CreateTokenForm({ error }: { error: { field: 'name' | 'expiresInDays'; error: string } | null }) {
  const { t } = useTranslation('tokens');
  const navigation = useNavigation();
  const nameId = useDomId();
  const expiryId = useDomId();
  const creating = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'create';
  return (
    <Form method="post" className="mt-6 flex flex-col gap-4" data-testid="create-token-form">
      <h2 className="text-base font-semibold text-slate-900">{t('page.createHeading')}</h2>
      <input type="hidden" name="intent" value="create" />
      <div className="flex flex-col gap-1.5">
        <label htmlFor={nameId} className="text-sm font-medium text-slate-800">
          {t('page.name')}
        </label>
        <input
          id={nameId}
          name="name"
          required
          maxLength={TOKEN_NAME_MAX}
          placeholder={t('page.namePlaceholder')}
          autoComplete="off"
          aria-invalid={error?.field === 'name' || undefined}
          aria-describedby={error?.field === 'name' ? `${nameId}-error` : undefined}
          className={inputClass}
        />
        {error?.field === 'name' ? (
          <p id={`${nameId}-error`} className="text-sm text-red-600">
            {error.error}
          </p>
        ) : null}
      </div>
      <div className="flex flex-col gap-1.5">
        <label htmlFor={expiryId} className="text-sm font-medium text-slate-800">
          {t('page.expiry')}
        </label>
        <select
          id={expiryId}
          name="expiresInDays"
          defaultValue=""
          aria-invalid={error?.field === 'expiresInDays' || undefined}
          className={`${inputClass} pr-8`}
        >
          <option value="">{t('page.expiryNever')}</option>
          {TOKEN_EXPIRY_DAYS.map((days) => (
            <option key={days} value={days}>
              {t('page.expiryDays', { count: days })}
            </option>
          ))}
        </select>
        {error?.field === 'expiresInDays' ? <p className="text-sm text-red-600">{error.error}</p> : null}
      </div>
      <div>
        <Button type="submit" pending={creating}>
          {creating ? t('page.creating') : t('page.create')}
        </Button>
      </div>
    </Form>
  );
}

function TokenList({ tokens }: { tokens: ApiToken[] }) {
  const { t, i18n } = useTranslation('tokens');
  const timeZone = useTimeZone();
  const when = (iso: string | null, none: string) => (iso ? formatDateTime(iso, i18n.language, timeZone) : none);
  return (
    <section aria-labelledby="token-list-heading" className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
      <h2 id="token-list-heading" className="text-base font-semibold text-slate-900">
        {t('page.listHeading')}
      </h2>
      {tokens.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">{t('page.empty')}</p>
      ) : (
        <div className="mt-3 overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="token-list">
            <thead className="text-slate-600">
              <tr>
                <th scope="col" className="py-2 pr-3 font-medium">
                  {t('page.columnName')}
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  {t('page.columnToken')}
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  {t('page.columnCreated')}
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  {t('page.columnLastUsed')}
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  {t('page.columnExpires')}
                </th>
                <th scope="col" className="py-2 pr-3 font-medium">
                  {t('page.columnStatus')}
                </th>
                <th scope="col" className="py-2">
                  <span className="sr-only">{t('page.revoke')}</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {tokens.map((token) => {
                const expired = token.expiresAt !== null && new Date(token.expiresAt).getTime() <= Date.now();
                const status = token.revokedAt ? 'statusRevoked' : expired ? 'statusExpired' : 'statusActive';
                return (
                  <tr key={token.id} data-testid="token-row">
                    <td className="py-2 pr-3 font-medium text-slate-900">{token.name}</td>
                    <td className="py-2 pr-3 font-mono text-xs text-slate-700">pf_live_…{token.last4}</td>
                    <td className="py-2 pr-3 whitespace-nowrap text-slate-700">{when(token.createdAt, '')}</td>
                    <td className="py-2 pr-3 whitespace-nowrap text-slate-700">{when(token.lastUsedAt, t('page.neverUsed'))}</td>
                    <td className="py-2 pr-3 whitespace-nowrap text-slate-700">{when(token.expiresAt, t('page.noExpiry'))}</td>
                    <td className="py-2 pr-3 text-slate-700">{t(`page.${status}`)}</td>
                    <td className="py-2 text-right">
                      {status === 'statusActive' ? (
                        <Form method="post">
                          <input type="hidden" name="intent" value="revoke" />
                          <input type="hidden" name="id" value={token.id} />
                          <input type="hidden" name="name" value={token.name} />
                          <button
                            type="submit"
                            className={buttonClass('destructive', 'sm')}
                            aria-label={t('page.revokeLabel', { name: token.name })}
                          >
                            {t('page.revoke')}
                          </button>
                        </Form>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
