import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { queuePublish } from '~/services/wordpress.server';
import { publishSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// SPEC §7: POST the publish payload (SPEC §3). Pro and Pro (Ending) only. The post is made by the
// `wordpress-publish` job: at once (status publish/draft/pending) or at publishDate (future).
// Answers { success, queued, publicationId, status, publishAt }; postId comes when the job is done
// (GET /api/wordpress/scheduled/{publicationId}). A result already published to the site (or
// waiting to be) is a 409 with `existing` unless the payload says `onExisting`: 'update' (that post)
// or 'new' (another post).
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const pub = await queuePublish(ctx.user.id, await ctx.read(publishSchema(ctx.t)));
      if (!pub) return ctx.error(400, ctx.t('publish.noContent'));
      const { postId, id: publicationId, status, publishAt } = pub;
      return ctx.ok({ success: true, queued: true, postId, publicationId, status, publishAt }, 202);
    },
    { methods: ['POST'] },
  );
}
