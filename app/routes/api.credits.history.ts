import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node';
import { z } from 'zod';
import { listHistory, PAGE_SIZE } from '~/services/ledger.server';
import { apiHeaders, apiSession } from '~/http/api-session.server';
import { methodNotAllowed } from '~/http/json-api.server';

const query = z.object({ page: z.coerce.number().int().min(1).max(1_000_000).catch(1) });

// The signed-in user's credit history, newest first, PAGE_SIZE a page (?page=N).
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await apiSession(request);
  if (session instanceof Response) return session;
  const { page } = query.parse(Object.fromEntries(new URL(request.url).searchParams));
  const history = await listHistory(session.user.id, page);
  const headers = apiHeaders(session);
  return json(
    {
      page: history.page,
      pageSize: PAGE_SIZE,
      pageCount: history.pageCount,
      total: history.total,
      entries: history.rows.map((r) => ({
        seq: r.seq,
        createdAt: r.createdAt.toISOString(),
        kind: r.kind,
        bucket: r.bucket,
        amount: r.amount,
        change: r.delta,
        balanceAfter: r.balanceAfter,
      })),
    },
    { headers },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  return methodNotAllowed(request, 'GET');
}
