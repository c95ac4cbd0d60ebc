import { parseWithZod } from '@conform-to/zod';
import type { ActionFunctionArgs } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { z } from 'zod';
import { languageCookieHeader } from '~/i18n.server';
import { languages } from '~/i18n';
import { saveUserLanguage } from '~/services/language.server';
import { getUser } from '~/services/sessions.server';
import { safeRedirect } from '~/utils/safe-redirect';

const schema = z.object({
  language: z.enum(languages),
  redirectTo: z.string().max(2048).optional(),
});

// Nothing to show: a stray GET goes home.
export async function loader() {
  return redirect('/');
}

/** Saves the language choice (cookie, and the account when signed in) and reloads the page. */
export async function action({ request }: ActionFunctionArgs) {
  const form = await request.formData().catch(() => new FormData());
  const submission = parseWithZod(form, { schema, disableAutoCoercion: true });
  if (submission.status !== 'success') return json({ error: 'Invalid language' }, { status: 400 });
  const target = safeRedirect(submission.value.redirectTo);
  if (target === null) return json({ error: 'Invalid redirect' }, { status: 400 });

  const user = await getUser(request);
  if (user) await saveUserLanguage(user.id, submission.value.language);
  return redirect(target, { status: 303, headers: { 'Set-Cookie': languageCookieHeader(submission.value.language) } });
}
