import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { createSite, listSites, refreshSiteTimeZone } from '~/services/wordpress.server';
import { siteSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, ok, readBody, serviceError, wpApiContext } from '~/http/wordpress-api.server';

// SPEC §7: GET the user's sites; POST { siteUrl, username, appPassword, isDefault, siteName } adds
// one (siteName is always the URL's host). The application password is never sent back.
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  return ok(ctx, { sites: await listSites(ctx.user.id) });
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request, 'GET, POST');
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const body = await readBody(request, siteSchema(ctx.t));
  if (body instanceof Response) return body;
  try {
    const site = await createSite(ctx.user.id, body.value);
    // The site's own time zone (scheduled times are shown in it too); best effort.
    const timeZone = await refreshSiteTimeZone(ctx.user.id, site.id).catch(() => null);
    return ok(ctx, { site: { ...site, timeZone } }, 201);
  } catch (error) {
    // An address the outbound guard refuses is not saved (422).
    return serviceError(ctx, error);
  }
}
