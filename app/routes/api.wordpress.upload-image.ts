import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { isPro } from '~/catalogue';
import { WpError } from '~/services/wordpress/client.server';
import { uploadImageToSite } from '~/services/wordpress/sites.server';
import { uploadImageSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { methodNotAllowed } from '~/http/json-api.server';

// The editor's image upload { siteId, imageBase64, filename, mimeType } → { success, url }.
// Without a site, or when the site refuses, the answer carries the image inline as a data URL
// (`inline: true`) so the editor can still embed it.
export async function loader({ request }: LoaderFunctionArgs) {
  return methodNotAllowed(request);
}

export function action({ request }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      const { siteId, imageBase64, filename, mimeType } = await ctx.read(uploadImageSchema(ctx.t));
      const data = Buffer.from(imageBase64.replace(/^data:[^;]+;base64,/, ''), 'base64');
      if (data.length === 0) return ctx.error(400, ctx.t('upload.failed'));
      const inline = (error?: string) =>
        ctx.ok({ success: false, inline: true, url: `data:${mimeType};base64,${data.toString('base64')}`, ...(error ? { error } : {}) });
      // Free users (and an editor with no site chosen) keep the image in the post itself.
      if (!siteId || !isPro(ctx.user.subscriptionStatus)) return inline();
      try {
        const media = await uploadImageToSite(ctx.user.id, siteId, { data, filename, mimeType });
        return ctx.ok({ success: true, url: media.url, id: media.id });
      } catch (error) {
        // The site refused: the editor still embeds the image (another service refusal is answered by its code).
        if (error instanceof WpError) return inline(ctx.t('upload.failedWordPress'));
        throw error;
      }
    },
    { methods: ['POST'] },
  );
}
