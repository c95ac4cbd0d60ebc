import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { queueBulkPublications } from '~/services/wordpress.server';
import { requestTimeZone } from '~/utils/time-zone.server';
import { bulkPublishSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, ok, readBody, serviceError, wpApiContext } from '~/http/wordpress-api.server';

// Bulk publish (issue 10): POST { siteId, resultIds, mode: 'now' | 'schedule', startDate + startTime
// (in timeZone, default the user's) or startAt (ISO), every, unit: 'hours' | 'days', categories,
// tags, featured, onExisting }. Pro and Pro (Ending) only; every result must be the user's completed
// text result (another user's id: 404, nothing queued). Results already on the site make a 409 with
// the list `existing` unless onExisting says 'update' (their posts), 'new' or 'skip'. Answers 202
// { success, queued, publications }.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const body = await readBody(request, bulkPublishSchema(ctx.t, requestTimeZone(request)));
  if (body instanceof Response) return body;
  try {
    const pubs = await queueBulkPublications(ctx.user.id, body.value);
    return ok(
      ctx,
      {
        success: true,
        queued: pubs.length,
        publications: pubs.map((p) => ({ id: p.id, resultId: p.resultId, title: p.title, status: p.status, publishAt: p.publishAt })),
      },
      202,
    );
  } catch (error) {
    return serviceError(ctx, error);
  }
}
