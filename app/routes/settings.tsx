import { parseWithZod } from '@conform-to/zod';
import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { requireUser } from '~/services/sessions.server';
import { saveSettingsAndKeys } from '~/services/user-settings.server';
import { readFormData } from '~/http/json-api.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { settingsFormSchema } from '~/utils/settings-request';
import { themeCookieHeader } from '~/runtime/theme.server';
import { redirectWithToast } from '~/http/toast.server';

// The settings dialog's form post (with or without JavaScript): saves, mirrors dark mode into the
// theme cookie, and returns to the page it came from with 'Settings Updated' or 'Update Failed'.
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const form = await readFormData(request);
  if (form instanceof Response) return form;
  const t = await getT(request, 'inputs');
  const submission = parseWithZod(form, { schema: settingsFormSchema, disableAutoCoercion: true });
  const redirectTo = submission.payload.redirectTo;
  const back = safeRedirect(typeof redirectTo === 'string' ? redirectTo : undefined, '/app') ?? '/app';
  if (submission.status !== 'success') {
    const url = new URL(back, 'http://x');
    url.searchParams.set('settings', '1');
    return redirectWithToast(url.pathname + url.search, {
      type: 'error',
      title: t('settings.failed'),
      description: t('settings.failedBody'),
    });
  }
  const saved = await saveSettingsAndKeys(user.id, submission.value);
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
