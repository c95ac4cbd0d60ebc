import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressWhole, preferredEncoding } from '../../app/runtime/compression.server';

describe('a page compressed whole', () => {
  it('takes br over gzip, honours q=0 and *, and sends nothing encoded to a client that asks for none', () => {
    expect(preferredEncoding('gzip, deflate, br')).toBe('br');
    expect(preferredEncoding('gzip, deflate, br;q=0')).toBe('gzip');
    expect(preferredEncoding('GZIP;q=0.5, deflate')).toBe('gzip');
    expect(preferredEncoding('deflate')).toBeNull();
    expect(preferredEncoding('identity')).toBeNull();
    expect(preferredEncoding('*')).toBe('br');
    expect(preferredEncoding('*;q=0, gzip')).toBe('gzip');
    expect(preferredEncoding('gzip;q=0, br;q=0')).toBeNull();
    expect(preferredEncoding('')).toBeNull();
    expect(preferredEncoding(null)).toBeNull();
  });

  it('gives back the same bytes through either decoder', () => {
    const page = Buffer.from(`<!DOCTYPE html><p>長寬比 ${'<span class="a b c">x</span>'.repeat(400)}</p>`);
    const br = compressWhole(page, 'br');
    const gzip = compressWhole(page, 'gzip');
    expect(br.length).toBeLessThan(page.length / 10);
    expect(zlib.brotliDecompressSync(br).equals(page)).toBe(true);
    expect(zlib.gunzipSync(gzip).equals(page)).toBe(true);
  });
});
