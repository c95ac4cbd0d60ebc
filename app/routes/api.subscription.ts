import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { getT } from '~/i18n.server';
import { getCurrentCreditSummary } from '~/services/ledger.server';
import { getSession } from '~/services/sessions.server';
import { apiError, methodNotAllowed } from '~/utils/json-api.server';

// SPEC §3 "Subscription info". Until billing exists the status is the user's own (free), text and
// image credits are the one shared balance, and the next billing date is the next monthly reset.
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSession(request);
  if (!session) return apiError(401, (await getT(request, 'auth'))('errors.unauthenticated'));
  const credits = await getCurrentCreditSummary(session.user.id);
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  if (session.setCookie) headers.append('Set-Cookie', session.setCookie);
  return json(
    {
      subscriptionStatus: session.user.subscriptionStatus,
      creditsRemaining: credits.creditsRemaining,
      topUpCreditsRemaining: credits.topUpCreditsRemaining,
      totalCreditsRemaining: credits.totalCreditsRemaining,
      textCreditsRemaining: credits.totalCreditsRemaining,
      imageCreditsRemaining: credits.totalCreditsRemaining,
      nextBillingDate: credits.nextResetAt?.toISOString() ?? null,
    },
    { headers },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
