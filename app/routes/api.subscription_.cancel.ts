import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { cancelSubscription } from '~/services/billing.server';
import { apiSession, billingApiError, noStore } from '~/http/billing.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: POST, no body. Cancels at the period end; 'No active subscription' otherwise (SPEC §8).
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  try {
    const info = await cancelSubscription(session.user);
    return noStore({ success: true, subscriptionStatus: info.subscriptionStatus, nextBillingDate: info.nextBillingDate }, session);
  } catch (err) {
    return billingApiError(request, err);
  }
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
