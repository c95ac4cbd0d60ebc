import type { LoaderFunctionArgs } from '@remix-run/node';
import { resultDownload } from '~/services/results.server';
import { withApi } from '~/http/api-context.server';
import { validationError } from '~/http/json-api.server';
import { resultDownloadQuerySchema } from '~/utils/generation-schema';
import { contentDisposition } from '~/http/download.server';

// GET /api/results/{id}/download[?index=n]: a text result as `{prompt 30}.txt` (its internal links
// listed after it, under a heading in the caller's language), an image as its file.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => {
    const query = resultDownloadQuerySchema(ctx.t).safeParse({ index: new URL(request.url).searchParams.get('index') ?? undefined });
    if (!query.success) return validationError(query.error);
    const { index } = query.data;
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
