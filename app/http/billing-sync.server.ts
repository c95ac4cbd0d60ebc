import { syncCheckoutSession } from '~/services/billing/checkout.server';
import { withApi } from '~/http/api-context.server';
import { getT } from '~/i18n.server';

const SESSION_ID = /^cs_[A-Za-z0-9_]{1,250}$/;

/** The Checkout Session id: the body's sessionId, else the return URL's session_id (Referer). */
function sessionIdFrom(request: Request, body: Record<string, unknown>): string | null {
  const fromBody = body.sessionId ?? body.session_id;
  if (typeof fromBody === 'string' && SESSION_ID.test(fromBody)) return fromBody;
  const referer = request.headers.get('referer');
  if (referer) {
    try {
      const id = new URL(referer).searchParams.get('session_id');
      if (id && SESSION_ID.test(id)) return id;
    } catch {
      // not a URL
    }
  }
  return null;
}

/**
 * POST /api/subscription/manual-upgrade and /activate: the body the client sends (empty, or
 * isTopUp with creditAmount) is never trusted; the Checkout Session is read from Stripe, checked
 * (paid, this user's) and fulfilled exactly as the webhook would.
 */
export function syncAction(request: Request): Promise<Response> {
  return withApi(
    request,
    'billing',
    async (ctx) => {
      let body: Record<string, unknown> = {};
      const text = await request.text();
      if (text.trim()) {
        try {
          const parsed = JSON.parse(text) as unknown;
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
        } catch {
          return ctx.error(400, (await getT(request, 'auth'))('errors.invalidJson'));
        }
      }
      const sessionId = sessionIdFrom(request, body);
      if (!sessionId) return ctx.error(400, ctx.t('errors.missingSession'));
      return ctx.ok({ success: true, ...(await syncCheckoutSession(ctx.user.id, sessionId)) });
    },
    { methods: ['POST'] },
  );
}
