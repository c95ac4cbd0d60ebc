import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { removeResultLink } from '~/services/internal-links.server';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// DELETE /api/results/{id}/links/{linkId}: removes one of the post's links. Removing
// it again changes nothing; it is never proposed again for that post, nor published.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request, 'DELETE');
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      await removeResultLink(ctx.user.id, params.id ?? '', params.linkId ?? '');
      return ctx.ok({ success: true });
    },
    { methods: ['DELETE'], allow: 'DELETE' },
  );
}
