import type { LoaderFunctionArgs } from '@remix-run/node';
import { streamAllResults } from '~/services/results.server';
import { resultsFilterQuerySchema } from '~/utils/generation-schema';
import { withApi } from '~/http/api-context.server';
import { validationError } from '~/http/json-api.server';
import { contentDisposition } from '~/http/download.server';

// GET /api/results/download-all[?type=text|image&search=…]: the completed results the Results tab
// shows for that filter and search, as ONE ZIP streamed while it is built (text_results.txt with
// each prompt as a separator and each post's internal links after it, images named by their prompts).
export function loader({ request }: LoaderFunctionArgs) {
  return withApi(request, 'generation', async (ctx) => {
    const url = new URL(request.url);
    const parsed = resultsFilterQuerySchema(ctx.t).safeParse({
      type: url.searchParams.get('type') ?? undefined,
      search: url.searchParams.get('search') ?? undefined,
    });
    if (!parsed.success) return validationError(parsed.error);
    const { type, search } = parsed.data;
    const zip = await streamAllResults(ctx.user.id, { type, search }, { linksHeading: ctx.t('download.linksHeading') });
    return new Response(zip.stream, {
      headers: {
        'Content-Type': 'application/zip',
        'Content-Disposition': contentDisposition(zip.filename),
        'Cache-Control': 'private, no-store',
        'X-Text-Files': String(zip.counts.text),
        'X-Image-Files': String(zip.counts.images),
      },
    });
  });
}
