import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { createSite, listSites, refreshSiteTimeZone } from '~/services/wordpress/sites.server';
import { siteSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';

// GET the user's sites; POST { siteUrl, username, appPassword, isDefault, siteName } adds
// one (siteName is always the URL's host). The application password is never sent back.
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => ctx.ok({ sites: await listSites(ctx.user.id) }));
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const site = await createSite(ctx.user.id, await ctx.read(siteSchema(ctx.t)));
      // The site's own time zone (scheduled times are shown in it too); best effort.
      const timeZone = await refreshSiteTimeZone(ctx.user.id, site.id).catch(() => null);
      return ctx.ok({ site: { ...site, timeZone } }, 201);
    },
    { methods: ['POST'], allow: 'GET, POST' },
  );
}
