import type { ActionFunctionArgs } from '@remix-run/node';
import { detectLanguage } from '~/i18n.server';
import { cleanPath, cleanReferrer, MAX_PAGE_VIEW_BODY, pageViewSchema, recordPageView } from '~/services/analytics.server';
import { hit } from '~/services/rate-limit.server';
import { clientKeyOf, retryAfterHeaders } from '~/http/rate-limit-response.server';
import { getSession } from '~/services/sessions.server';
import { apiError } from '~/http/json-api.server';

export async function loader() {
  return apiError(405, 'Method not allowed', { headers: { Allow: 'POST' } });
}

/** Receives navigator.sendBeacon page views: a JSON body sent as text/plain or application/json. */
export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== 'POST') return apiError(405, 'Method not allowed', { headers: { Allow: 'POST' } });
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  if (!type.startsWith('text/plain') && !type.startsWith('application/json')) {
    return apiError(400, 'Expected a JSON body');
  }
  if (Number(request.headers.get('content-length') ?? 0) > MAX_PAGE_VIEW_BODY) return apiError(413, 'Body too large');
  const limit = await hit('pageviewIp', clientKeyOf(context));
  if (limit.limited) return apiError(429, 'Too many page views', { headers: retryAfterHeaders(limit) });
  const text = await request.text().catch(() => null);
  if (text === null || text.length > MAX_PAGE_VIEW_BODY) return apiError(400, 'Invalid body');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return apiError(400, 'Malformed JSON');
  }
  const parsed = pageViewSchema.safeParse(body);
  const path = parsed.success ? cleanPath(parsed.data.path) : null;
  if (!parsed.success || path === null) return apiError(400, 'Invalid page view');

  const [language, session] = await Promise.all([detectLanguage(request), getSession(request)]);
  await recordPageView({ path, referrer: cleanReferrer(parsed.data.referrer), language, signedIn: session !== null });
  return new Response(null, { status: 204, headers: session?.setCookie ? { 'Set-Cookie': session.setCookie } : undefined });
}
