import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getPublication, publishAndWait, queuePublish, WordPressServiceError } from '~/services/wordpress.server';
import { publishSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, ok, readBody, serviceError, wpApiContext } from '~/http/wordpress-api.server';
import { apiError } from '~/http/json-api.server';
import { once } from '~/http/idempotency.server';

// SPEC §7: POST the publish payload (SPEC §3); Pro and Pro (Ending) only. The post is made by the
// `wordpress-publish` job (the one idempotent path). Publish now (status publish/draft/pending)
// waits for it up to WORDPRESS_PUBLISH_WAIT_SECONDS: { success: true, postId, link } (200), or the
// site's failure { success: false, error } (502); a slower site is 202 { success: true, queued,
// publicationId } and finishes in the background (GET /api/wordpress/scheduled/{publicationId}).
// Scheduled (future) answers { success: true, publicationId, publishAt } at once. `target: 'media'`
// puts an image result's images into the media library only (link: the first one's URL). A result
// already published to the site (or waiting to be) is a 409 with `existing` unless the payload says
// `onExisting`: 'update' (that post) or 'new' (another post). Once per Idempotency-Key (issue 23
// §2): the same key and payload answer about the publication queued the first time, never a second.
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
    const first = await once(request, ctx.user.id, body.value, async (tx) => {
      const queued = await queuePublish(ctx.user.id, body.value, tx);
      if (!queued) throw new WordPressServiceError('no_content');
      return { status: 202, body: { publicationId: queued.id } };
    });
    if (first instanceof Response) return first;
    const { publicationId } = first.body as { publicationId: string };
    const done = await publishAndWait(ctx.user.id, body.value, undefined, () => getPublication(ctx.user.id, publicationId));
    if (!done) return apiError(400, ctx.t('publish.noContent'), { headers: ctx.headers });
    const { publication: pub, outcome } = done;
    const common = { publicationId: pub.id, status: pub.status, kind: pub.kind, publishAt: pub.publishAt };
    if (outcome === 'published') return ok(ctx, { success: true, postId: pub.postId, link: pub.link, ...common });
    if (outcome === 'scheduled') return ok(ctx, { success: true, postId: null, ...common });
    if (outcome === 'background') {
      return ok(ctx, { success: true, queued: true, postId: null, message: ctx.t('publish.background'), ...common }, 202);
    }
    return ok(
      ctx,
      { success: false, error: `${ctx.t('publish.failed')}: ${pub.lastError ?? ''}`.trim(), errorCode: pub.lastErrorCode, ...common },
      502,
    );
  } catch (error) {
    return serviceError(ctx, error);
  }
}
