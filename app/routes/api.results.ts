import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { clearResults, listResults } from '~/services/results.server';
import { resultsQuerySchema } from '~/utils/generation-schema';
import { ok, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: GET /api/results?page&limit&type&search → { results, pagination }; DELETE clears all
// (running items are canceled and refunded first).
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  const query = resultsQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return ok(await listResults(user.userId, query), user);
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'DELETE') return methodNotAllowed(request, 'GET, DELETE');
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => ok({ success: true, ...(await clearResults(user.userId)) }, user));
}
