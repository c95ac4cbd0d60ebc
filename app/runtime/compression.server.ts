import zlib from 'node:zlib';

/**
 * How responses are compressed. Every browser asks for br or gzip, so a page's compression is part
 * of what each request costs: at the usual defaults (brotli quality 4, gzip level 6) zlib was ~8 %
 * of a signed-in page's CPU. Brotli quality 1 and gzip level 3 take about a sixth of that time for a
 * page ~15 % larger, which a page's round trip does not notice (docs/performance.md).
 */
export const GZIP_LEVEL = 3;
export const BROTLI_QUALITY = 1;

/** Below this a page goes out as it is, as with the middleware: the headers would outweigh the saving. */
export const MIN_COMPRESSED_BYTES = 1024;

export type Encoding = 'br' | 'gzip';

/** The weight a client gives `coding` in its Accept-Encoding (`*` counts for a coding it does not name). */
function weightOf(header: string, coding: string): number {
  let star = -1;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (name === coding) return Number.isFinite(weight) ? weight : 0;
    if (name === '*') star = Number.isFinite(weight) ? weight : 0;
  }
  return star;
}

/** br when the client takes it, else gzip, else none: the order the compression middleware prefers. */
export function preferredEncoding(acceptEncoding: string | null | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  if (weightOf(acceptEncoding, 'br') > 0) return 'br';
  if (weightOf(acceptEncoding, 'gzip') > 0) return 'gzip';
  return null;
}

/**
 * A whole page compressed in one call. A rendered document is one buffer already: compressing it
 * at once costs about half of what the streaming middleware spends on the same bytes (its stream,
 * the thread pool's round trip and their callbacks), and the answer keeps an exact Content-Length.
 */
export function compressWhole(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? zlib.brotliCompressSync(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : zlib.gzipSync(body, { level: GZIP_LEVEL });
}
