import { redirect, type ActionFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { destroySession } from '~/services/sessions.server';
import { redirectWithToast } from '~/http/toast.server';

// Signing out changes state, so it is a POST (a form button in the account menu); a GET only goes home.
export async function loader() {
  return redirect('/');
}

export async function action({ request }: ActionFunctionArgs) {
  const t = await getT(request, 'auth');
  const clearCookie = await destroySession(request);
  return redirectWithToast(
    '/',
    { type: 'success', title: t('logout.title'), description: t('logout.description') },
    { headers: { 'Set-Cookie': clearCookie } },
  );
}
