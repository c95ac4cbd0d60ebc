import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { isPro } from '~/catalogue';
import { uploadImageToSite } from '~/services/wordpress.server';
import { uploadImageSchema } from '~/utils/wordpress-schemas';
import { methodNotAllowed, ok, readBody, wpApiContext } from '~/http/wordpress-api.server';
import { WpError } from '~/services/wordpress-client.server';
import { WordPressServiceError } from '~/services/wordpress.server';
import { apiError } from '~/http/json-api.server';

// SPEC §7: the editor's image upload { siteId, imageBase64, filename, mimeType } → { success, url }.
// Without a site, or when the site refuses, the answer carries the image inline as a data URL
// (`inline: true`) so the editor can still embed it.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed(request);
  const ctx = await wpApiContext(request);
  if (ctx instanceof Response) return ctx;
  const body = await readBody(request, uploadImageSchema(ctx.t));
  if (body instanceof Response) return body;
  const { siteId, imageBase64, filename, mimeType } = body.value;
  const base64 = imageBase64.replace(/^data:[^;]+;base64,/, '');
  const data = Buffer.from(base64, 'base64');
  if (data.length === 0) return apiError(400, ctx.t('upload.failed'), { headers: ctx.headers });
  const inline = (error?: string) =>
    ok(ctx, { success: false, inline: true, url: `data:${mimeType};base64,${data.toString('base64')}`, ...(error ? { error } : {}) });
  // Free users (and an editor with no site chosen) keep the image in the post itself.
  if (!siteId || !isPro(ctx.user.subscriptionStatus)) return inline();
  try {
    const media = await uploadImageToSite(ctx.user.id, siteId, { data, filename, mimeType });
    return ok(ctx, { success: true, url: media.url, id: media.id });
  } catch (error) {
    if (error instanceof WordPressServiceError && error.code === 'not_found')
      return apiError(404, ctx.t('sites.notFound'), { headers: ctx.headers });
    if (error instanceof WpError) return inline(ctx.t('upload.failedWordPress'));
    throw error;
  }
}
