import type { LoaderFunctionArgs } from '@remix-run/node';
import { resultDownload } from '~/services/results.server';
import { withApi } from '~/http/api-context.server';
import { contentDisposition } from '~/http/download.server';

// GET /api/results/{id}/download[?index=n]: a text result as `{prompt 30}.txt` (its internal links
// listed after it, under a heading in the caller's language), an image as its file.
export function loader({ request, params }: LoaderFunctionArgs) {
  const index = Math.max(0, Math.min(3, Number(new URL(request.url).searchParams.get('index')) || 0));
  return withApi(request, 'generation', async (ctx) => {
    const file = await resultDownload(ctx.user.id, params.id ?? '', index, { linksHeading: ctx.t('download.linksHeading') });
    return new Response(file.body, {
      headers: {
        'Content-Type': file.contentType,
        'Content-Length': String(file.body.length),
        'Content-Disposition': contentDisposition(file.filename),
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  });
}
