import type { LoaderFunctionArgs } from '@remix-run/node';
import { getImage } from '~/services/results.server';
import { GenerationError } from '~/services/generation/rules.server';
import { apiCaller } from '~/http/api-context.server';

// GET /images/{id}: a generated image from our own storage, to its owner only (anyone else: 404).
// Images never change, so the browser keeps them (privately) for a year. An API token works too
// (scripts fetch a result's imageUrls).
export async function loader({ request, params }: LoaderFunctionArgs) {
  const notFound = () =>
    new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });
  const session = await apiCaller(request);
  if (!session || session instanceof Response) return session?.status === 429 ? session : notFound();
  try {
    const image = await getImage(session.user.id, params.id ?? '');
    const etag = `"${image.id}"`;
    const headers = {
      'Content-Type': image.contentType,
      'Cache-Control': 'private, max-age=31536000, immutable',
      ETag: etag,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    };
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(image.bytes, { headers: { ...headers, 'Content-Length': String(image.bytes.length) } });
  } catch (err) {
    if (err instanceof GenerationError) return notFound();
    throw err;
  }
}
