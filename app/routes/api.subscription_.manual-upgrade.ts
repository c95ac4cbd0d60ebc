import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { syncAction } from '~/http/billing-sync.server';
import { methodNotAllowed } from '~/http/json-api.server';

// POST /api/subscription/manual-upgrade (the return page calls it; see app/http/billing-sync.server.ts).
export async function action({ request }: ActionFunctionArgs) {
  return syncAction(request);
}

export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}
