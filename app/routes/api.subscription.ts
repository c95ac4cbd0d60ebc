import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getSubscriptionInfo } from '~/services/billing/subscription-info.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// GET /api/subscription, the subscription info: the real status, the balances (text and image credits are the one
// shared balance) and the next billing date (the Pro period's end, else the next monthly reset).
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'billing', async (ctx) => {
    const info = await getSubscriptionInfo(ctx.user.id);
    return ctx.ok({
      subscriptionStatus: info.subscriptionStatus,
      creditsRemaining: info.creditsRemaining,
      topUpCreditsRemaining: info.topUpCreditsRemaining,
      totalCreditsRemaining: info.totalCreditsRemaining,
      textCreditsRemaining: info.textCreditsRemaining,
      imageCreditsRemaining: info.imageCreditsRemaining,
      nextBillingDate: info.nextBillingDate,
    });
  });
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
