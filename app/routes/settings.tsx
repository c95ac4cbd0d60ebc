import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from '@remix-run/node';
import { sql, transaction } from '../../db/client';
import { getT } from '~/i18n.server';
import { saveApiKeys } from '~/services/api-keys.server';
import { requireUser } from '~/services/sessions.server';
import { saveSettings } from '~/services/user-settings.server';
import { readFormData } from '~/utils/json-api.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { settingsFromForm } from '~/utils/settings-request';
import { themeCookieHeader } from '~/utils/theme.server';
import { redirectWithToast } from '~/utils/toast.server';

// The settings dialog's form post (with or without JavaScript): saves, mirrors dark mode into the
// theme cookie, and returns to the page it came from with 'Settings Updated' or 'Update Failed'.
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readFormData(request);
  if (form instanceof Response) return form;
  const t = await getT(request, 'inputs');
  const back = safeRedirect(form.get('redirectTo'), '/app') ?? '/app';
  const parsed = settingsFromForm(form);
  if (!parsed.success) {
    const url = new URL(back, 'http://x');
    url.searchParams.set('settings', '1');
    return redirectWithToast(url.pathname + url.search, {
      type: 'error',
      title: t('settings.failed'),
      description: t('settings.failedBody'),
    });
  }
  const { openRouterApiKey, replicateApiKey, ...values } = parsed.data;
  const saved = await transaction(sql, async (tx) => {
    await saveApiKeys(user.id, { openRouterApiKey, replicateApiKey }, tx);
    return saveSettings(user.id, values, tx);
  });
  return redirectWithToast(
    back,
    { type: 'success', title: t('settings.updated'), description: t('settings.updatedBody') },
    { headers: { 'Set-Cookie': themeCookieHeader(saved.darkMode) } },
  );
}

/** The settings "page": the dialog over the workspace (it is a URL state: ?settings=1). */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return redirect('/app?settings=1');
}
