import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { AppShell } from '~/components/app-shell';
import { ApiTokensPanel } from '~/components/api-tokens';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { getT } from '~/i18n.server';
import { ApiTokenError, createApiToken, listApiTokens, MAX_TOKENS_PER_USER, revokeApiToken } from '~/services/api-tokens.server';
import { requireUser } from '~/services/sessions.server';
import { privatePageHeaders, requirePageShell } from '~/http/account.server';
import { readFormData } from '~/http/json-api.server';
import { redirectWithToast } from '~/http/toast.server';
import { newTokenSchema } from '~/utils/api-token-form';
import { rootT } from '~/utils/meta';

// Personal API tokens, from the settings dialog: create (name, optional expiry; the
// token is in this response only), list with created / last use / expiry, revoke. Plain form
// posts: the same with and without JavaScript.
export const API_TOKENS_PAGE = '/settings/api-tokens';

export async function loader({ request }: LoaderFunctionArgs) {
  const { userId, user, account } = await requirePageShell(request);
  return json({ user, account, tokens: await listApiTokens(userId) }, { headers: privatePageHeaders });
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readFormData(request);
  if (form instanceof Response) return form;
  const t = await getT(request, 'tokens');
  if (form.get('intent') === 'revoke') {
    const name = String(form.get('name') ?? '');
    const revoked = await revokeApiToken(user.id, String(form.get('id') ?? ''));
    return redirectWithToast(
      API_TOKENS_PAGE,
      revoked
        ? { type: 'success', title: t('toast.revoked'), description: t('toast.revokedBody', { name }) }
        : { type: 'error', title: t('toast.notFound') },
    );
  }
  const parsed = newTokenSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0] === 'expiresInDays' ? 'expiresInDays' : 'name';
    const message = field === 'name' ? t('toast.nameRequired') : t('toast.badExpiry');
    return json({ ok: false as const, field, error: message }, { status: 400, headers: privatePageHeaders });
  }
  try {
    const { name, expiresInDays } = parsed.data;
    const expiresAt = expiresInDays ? new Date(Date.now() + expiresInDays * 24 * 60 * 60 * 1000) : null;
    const created = await createApiToken(user.id, { name, expiresAt });
    // The one response that carries the token: never stored by a cache.
    return json({ ok: true as const, token: created.token, name: created.apiToken.name }, { headers: privatePageHeaders });
  } catch (err) {
    if (!(err instanceof ApiTokenError)) throw err;
    return json(
      { ok: false as const, field: 'name' as const, error: t('toast.tooMany', { max: MAX_TOKENS_PER_USER }) },
      { status: 409, headers: privatePageHeaders },
    );
  }
}

export default function ApiTokensPage() {
  const { user, account, tokens } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <AppShell user={user} credits={account.credits.totalCreditsRemaining}>
      <ApiTokensPanel tokens={tokens} result={result ?? null} />
    </AppShell>
  );
}

export const meta: MetaFunction = ({ matches }) => [
  { title: `${rootT(matches, 'page.title', 'tokens')} · ${rootT(matches, 'meta.appTitle')}` },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
