import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { cancelSubscription } from '~/services/billing/subscriptions.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST, no body. Cancels at the period end; 'No active subscription' otherwise.
export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'billing',
    async (ctx) => {
      const info = await cancelSubscription(ctx.user);
      return ctx.ok({ success: true, subscriptionStatus: info.subscriptionStatus, nextBillingDate: info.nextBillingDate });
    },
    { methods: ['POST'] },
  );
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
