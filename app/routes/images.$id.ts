import type { LoaderFunctionArgs } from '@remix-run/node';
import { serveImage } from '~/services/images.server';
import { GenerationError } from '~/services/generation/rules.server';
import { ObjectMissing, StorageUnavailable } from '~/runtime/object-storage.server';
import { apiCaller } from '~/http/api-context.server';
import { getLogger } from '~/runtime/logger.server';

// GET /images/{id}: a generated image from our own storage, to its owner only (anyone else: 404).
// Images never change, so the browser keeps them (privately) for a year. An API token works too
// (scripts fetch a result's imageUrls). An image in object storage is streamed through here, not
// linked: the owner check and these headers hold for every copy, and the bucket stays private.
export async function loader({ request, params }: LoaderFunctionArgs) {
  const plain = (status: number, text: string, extra: Record<string, string> = {}) =>
    new Response(text, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra } });
  const notFound = () => plain(404, 'Not found');
  const session = await apiCaller(request);
  if (!session || session instanceof Response) return session?.status === 429 ? session : notFound();
  try {
    const image = await serveImage(session.user.id, params.id ?? '');
    const etag = `"${image.id}"`;
    const headers = {
      'Content-Type': image.contentType,
      'Cache-Control': 'private, max-age=31536000, immutable',
      ETag: etag,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    };
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    const { body, length } = await image.open();
    return new Response(body, { headers: { ...headers, ...(length !== undefined ? { 'Content-Length': String(length) } : {}) } });
  } catch (err) {
    if (err instanceof GenerationError) return notFound();
    if (err instanceof StorageUnavailable || err instanceof ObjectMissing) {
      getLogger().error(
        { err: err.message, detail: 'detail' in err ? err.detail : undefined, imageId: params.id },
        'images: could not read an image from object storage',
      );
      return err instanceof ObjectMissing ? notFound() : plain(503, 'Service unavailable', { 'Retry-After': '5' });
    }
    throw err;
  }
}
