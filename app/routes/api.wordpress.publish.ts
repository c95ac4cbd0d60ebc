import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { queuePublish, WordPressServiceError } from '~/services/wordpress.server';
import { publishSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, readBody, serviceError, wpApiContext } from '~/http/wordpress-api.server';
import { idempotent } from '~/http/idempotency.server';

// SPEC §7: POST the publish payload (SPEC §3). Pro and Pro (Ending) only. The post is made by the
// `wordpress-publish` job: at once (status publish/draft/pending) or at publishDate (future).
// Answers { success, queued, publicationId, status, publishAt }; postId comes when the job is done
// (GET /api/wordpress/scheduled/{publicationId}). A result already published to the site (or
// waiting to be) is a 409 with `existing` unless the payload says `onExisting`: 'update' (that post)
// or 'new' (another post). Once per Idempotency-Key (issue 23 §2).
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
    return await idempotent(request, ctx.user.id, body.raw, ctx.headers, async (tx) => {
      const pub = await queuePublish(ctx.user.id, body.value, tx);
      if (!pub) throw new WordPressServiceError('no_content');
      return {
        status: 202,
        body: { success: true, queued: true, postId: pub.postId, publicationId: pub.id, status: pub.status, publishAt: pub.publishAt },
      };
    });
  } catch (error) {
    return serviceError(ctx, error);
  }
}
