import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { relinkRun, runLinks } from '~/services/internal-links.server';
import { runLinkSettingsApiSchema } from '~/utils/link-schemas';
import { withApi } from '~/http/api-context.server';

// Internal links of a run. GET: its settings and every text post's links (removed
// ones marked). PUT { enabled, count, sitePosts, siteId } (each optional: kept when left out) saves
// the settings and links the whole run again; no provider call, no credits.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => ctx.ok(await runLinks(ctx.user.id, params.id ?? '')));
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'generation',
    async (ctx) => {
      const runId = params.id ?? '';
      const linked = await relinkRun(ctx.user.id, runId, await ctx.read(runLinkSettingsApiSchema(ctx.t)));
      return ctx.ok({ linked, ...(await runLinks(ctx.user.id, runId)) });
    },
    { methods: ['PUT'], allow: 'GET, PUT' },
  );
}
