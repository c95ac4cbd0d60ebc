import type { LoaderFunctionArgs } from '@remix-run/node';
import { resultDownload } from '~/services/results.server';
import { contentDisposition, requireApiUser, withGenerationErrors } from '~/http/generation-api.server';

// GET /api/results/{id}/download[?index=n]: a text result as `{prompt 30}.txt`, an image as its file.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  if (user instanceof Response) return user;
  const index = Math.max(0, Math.min(3, Number(new URL(request.url).searchParams.get('index')) || 0));
  return withGenerationErrors(request, user, async () => {
    const file = await resultDownload(user.userId, params.id ?? '', index);
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
