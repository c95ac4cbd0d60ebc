import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { WordPressServiceError } from '~/services/wordpress/errors.server';
import { getPublication, queuePublish } from '~/services/wordpress/publications.server';
import { publishAndWait } from '~/services/wordpress/publish-now.server';
import { publishSchema, type PublishPayload } from '~/utils/wordpress-schemas';
import { shownStatus } from '~/utils/publication-state';
import { withApi, type ApiContext } from '~/http/api-context.server';
import { readerTimeZone } from '~/http/time-zone.server';
import { idempotent } from '~/http/idempotency.server';
import { methodNotAllowed } from '~/http/json-api.server';
import { heldReason } from '~/http/wordpress-publish.server';

// POST the publish payload; Pro and Pro (Ending) only. The post is made by the
// `wordpress-publish` job (the one idempotent path). Publish now (status publish/draft/pending)
// waits for it up to WORDPRESS_PUBLISH_WAIT_SECONDS: { success: true, postId, link, status } (200;
// status draft or pending with the post's wp-admin link when so asked), or the
// site's failure { success: false, error } (502); a slower site is 202 { success: true, queued,
// publicationId } and finishes in the background (GET /api/wordpress/scheduled/{publicationId}).
// Scheduled (future) answers { success: true, publicationId, publishAt } at once (a past publishDate
// is refused, 400); the post is made on the site's own schedule at once when far enough ahead. `target: 'media'`
// puts an image result's images into the media library only (link: the first one's URL). A result
// already published to the site (or waiting to be) is a 409 with `existing` unless the payload says
// `onExisting`: 'update' (that post) or 'new' (another post). Once per Idempotency-Key, so a retried
// request never publishes twice: the same key and payload answer about the publication queued the first time, never a second,
// with `Idempotent-Replayed: true` as the generation routes' replays. `qualityGate: true` publishes
// only if the post's quality report passes or it was approved: a post that fails is 202 { held,
// heldFor } and waits (queued) until approved.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const input = await ctx.read(publishSchema(ctx.t, await readerTimeZone(request, ctx.user)));
      return idempotent(
        request,
        ctx.user.id,
        input,
        async (tx) => {
          const queued = await queuePublish(ctx.user.id, input, tx);
          if (!queued) throw new WordPressServiceError('no_content');
          return { status: 202, body: { publicationId: queued.id } };
        },
        ({ body }) => answerPublish(ctx, input, (body as { publicationId: string }).publicationId),
      );
    },
    { methods: ['POST'] },
  );
}

/** The queued publication once it is published, failed or left to the background (or scheduled). */
async function answerPublish(ctx: ApiContext, input: PublishPayload, publicationId: string): Promise<Response> {
  const done = await publishAndWait(ctx.user.id, input, undefined, () => getPublication(ctx.user.id, publicationId));
  if (!done) return ctx.error(400, ctx.t('publish.noContent'));
  const { publication: pub, outcome } = done;
  // A draft or a post pending review is reported as such (its link: where the blogger edits it).
  const shown = shownStatus(pub);
  const status = shown === 'updated' ? 'published' : shown;
  const common = { publicationId: pub.id, status, postStatus: pub.postStatus, kind: pub.kind, publishAt: pub.publishAt };
  if (outcome === 'published') return ctx.ok({ success: true, postId: pub.postId, link: pub.link, ...common });
  if (outcome === 'scheduled') return ctx.ok({ success: true, postId: null, ...common });
  if (outcome === 'held') {
    // Gated and its report fails: it waits until the post is approved; `heldFor` names the failed checks.
    const heldFor = done.quality?.checks.filter((c) => c.status === 'fail').map((c) => c.id) ?? [];
    return ctx.ok(
      { success: true, queued: true, held: true, heldFor, postId: null, message: heldReason(ctx.t, done.quality ?? null), ...common },
      202,
    );
  }
  if (outcome === 'background') {
    return ctx.ok({ success: true, queued: true, postId: null, message: ctx.t('publish.background'), ...common }, 202);
  }
  const error = `${ctx.t('publish.failed')}: ${pub.lastError ?? ''}`.trim();
  return ctx.ok({ success: false, error, errorCode: pub.lastErrorCode, ...common }, 502);
}
