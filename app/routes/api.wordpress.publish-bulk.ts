import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { queueBulkPublications } from '~/services/wordpress/bulk.server';
import { readerTimeZone } from '~/http/time-zone.server';
import { bulkPublishSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// Bulk publish: POST { siteId, resultIds, mode: 'now' | 'schedule', startDate + startTime
// (in timeZone, default the user's) or startAt (ISO), every, unit: 'hours' | 'days', categories,
// tags, perPost: [{ resultId, categories, tags }] (a post's own, replacing the shared ones), featured,
// onExisting, postStatus: 'publish' (default) | 'draft' | 'pending' }. Pro and Pro (Ending) only; every result must be the user's completed
// text result (another user's id: 404, nothing queued). Results already on the site make a 409 with
// the list `existing` unless onExisting says 'update' (their posts), 'new' or 'skip'. Answers 202
// { success, queued, publications }.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const pubs = await queueBulkPublications(
        ctx.user.id,
        await ctx.read(bulkPublishSchema(ctx.t, await readerTimeZone(request, ctx.user))),
      );
      const publications = pubs.map((p) => ({
        id: p.id,
        resultId: p.resultId,
        title: p.title,
        status: p.status,
        postStatus: p.postStatus,
        publishAt: p.publishAt,
      }));
      return ctx.ok({ success: true, queued: pubs.length, publications }, 202);
    },
    { methods: ['POST'] },
  );
}
