import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getSubscriptionInfo } from '~/services/billing.server';
import { apiSession, noStore } from '~/http/billing.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §3 "Subscription info": the real status, the balances (text and image credits are the one
// shared balance) and the next billing date (the Pro period's end, else the next monthly reset).
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  const info = await getSubscriptionInfo(session.user.id);
  return noStore(
    {
      subscriptionStatus: info.subscriptionStatus,
      creditsRemaining: info.creditsRemaining,
      topUpCreditsRemaining: info.topUpCreditsRemaining,
      totalCreditsRemaining: info.totalCreditsRemaining,
      textCreditsRemaining: info.textCreditsRemaining,
      imageCreditsRemaining: info.imageCreditsRemaining,
      nextBillingDate: info.nextBillingDate,
    },
    session,
  );
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
