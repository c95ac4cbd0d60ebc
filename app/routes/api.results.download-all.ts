import type { LoaderFunctionArgs } from '@remix-run/node';
import { streamAllResults } from '~/services/results.server';
import { contentDisposition, requireApiUser, withGenerationErrors } from '~/utils/generation-api.server';

// GET /api/results/download-all: every completed result as ONE ZIP streamed while it is built
// (text_results.txt with each prompt as a separator, images named by SPEC §9).
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  return withGenerationErrors(request, user, async () => {
    const zip = await streamAllResults(user.userId);
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
