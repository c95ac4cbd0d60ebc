import type { ActionFunctionArgs } from '@remix-run/node';
import { json } from '@remix-run/node';
import { detectLanguage } from '~/i18n.server';
import { cleanPath, cleanReferrer, MAX_PAGE_VIEW_BODY, pageViewSchema, recordPageView } from '~/services/analytics.server';
import { hit } from '~/services/rate-limit.server';
import { clientKeyOf, retryAfterHeaders } from '~/http/rate-limit-response.server';
import { getSession } from '~/services/sessions.server';

export async function loader() {
  return json({ error: 'Method not allowed' }, { status: 405, headers: { Allow: 'POST' } });
}

/** Receives navigator.sendBeacon page views: a JSON body sent as text/plain or application/json. */
export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== 'POST') return json({ error: 'Method not allowed' }, { status: 405, headers: { Allow: 'POST' } });
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  if (!type.startsWith('text/plain') && !type.startsWith('application/json')) {
    return json({ error: 'Expected a JSON body' }, { status: 400 });
  }
  if (Number(request.headers.get('content-length') ?? 0) > MAX_PAGE_VIEW_BODY) return json({ error: 'Body too large' }, { status: 413 });
  const limit = await hit('pageviewIp', clientKeyOf(context));
  if (limit.limited) return json({ error: 'Too many page views' }, { status: 429, headers: retryAfterHeaders(limit) });
  const text = await request.text().catch(() => null);
  if (text === null || text.length > MAX_PAGE_VIEW_BODY) return json({ error: 'Invalid body' }, { status: 400 });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json({ error: 'Malformed JSON' }, { status: 400 });
  }
  const parsed = pageViewSchema.safeParse(body);
  const path = parsed.success ? cleanPath(parsed.data.path) : null;
  if (!parsed.success || path === null) return json({ error: 'Invalid page view' }, { status: 400 });

  const [language, session] = await Promise.all([detectLanguage(request), getSession(request)]);
  await recordPageView({ path, referrer: cleanReferrer(parsed.data.referrer), language, signedIn: session !== null });
  return new Response(null, { status: 204, headers: session?.setCookie ? { 'Set-Cookie': session.setCookie } : undefined });
}
