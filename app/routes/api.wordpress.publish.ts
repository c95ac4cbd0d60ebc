import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { queuePublish } from '~/services/wordpress.server';
import { publishSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, ok, readBody, serviceError, wpApiContext } from '~/http/wordpress-api.server';
import { apiError } from '~/http/json-api.server';

// SPEC §7: POST the publish payload (SPEC §3). Pro and Pro (Ending) only. The post is made by the
// `wordpress-publish` job: at once (status publish/draft/pending) or at publishDate (future).
// Answers { success, queued, publicationId, status, publishAt }; postId comes when the job is done
// (GET /api/wordpress/scheduled/{publicationId}). A result already published to the site (or
// waiting to be) is a 409 with `existing` unless the payload says `onExisting`: 'update' (that post)
// or 'new' (another post).
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const body = await readBody(request, publishSchema(ctx.t));
  if (body instanceof Response) return body;
  try {
    const pub = await queuePublish(ctx.user.id, body.value);
    if (!pub) return apiError(400, ctx.t('publish.noContent'), { headers: ctx.headers });
    return ok(
      ctx,
      { success: true, queued: true, postId: pub.postId, publicationId: pub.id, status: pub.status, publishAt: pub.publishAt },
      202,
    );
  } catch (error) {
    return serviceError(ctx, error);
  }
}
