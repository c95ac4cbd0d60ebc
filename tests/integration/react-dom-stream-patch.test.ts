/**
 * The patch of react-dom 18.3.1 (patches/react-dom+18.3.1.patch, docs/development.md "Patched packages"): when a
 * text chunk's multi-byte character does not fit in the 2 KB view the streaming renderer fills,
 * unpatched React writes the whole view, unfilled tail included, so a zh-HK page carried NUL bytes
 * in place of characters (e.g. "長\0\0寬比"). Patched, it writes only the bytes encoded.
 */
import { Writable } from 'node:stream';
import { createElement } from 'react';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
type Render = typeof import('react-dom/server').renderToPipeableStream;
// Both builds: the production one the compiled app loads, the development one of `NODE_ENV=test`.
const cjs = path.join(path.dirname(require.resolve('react-dom/package.json')), 'cjs');
const builds: Record<string, Render> = {
  production: require(path.join(cjs, 'react-dom-server.node.production.min.js')).renderToPipeableStream,
  development: require(path.join(cjs, 'react-dom-server.node.development.js')).renderToPipeableStream,
};

// Short text chunks (under 683 characters each: longer ones bypass the view) fill the view up to
// `filler` bytes, then a Chinese chunk follows.
function render(renderToPipeableStream: Render, filler: number, text: string): Promise<Buffer> {
  const pieces = [...Array.from({ length: Math.floor(filler / 500) }, () => 'a'.repeat(500)), 'a'.repeat(filler % 500)];
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
      final(done) {
        resolve(Buffer.concat(chunks));
        done();
      },
    });
    const spans = pieces.map((piece, i) => createElement('span', { key: i }, piece));
    const { pipe } = renderToPipeableStream(createElement('p', null, ...spans, createElement('b', { key: 'zh' }, text)), {
      onAllReady: () => pipe(sink),
      onShellError: reject,
    });
  });
}

describe('patched react-dom server stream', () => {
  it('a Chinese text chunk across the 2 KB view boundary arrives whole, with no NUL byte', async () => {
    // Every offset near the boundary: some leave 1 or 2 free bytes for a 3-byte character.
    const text = '長寬比：方形、橫向、直向';
    for (const [build, renderToPipeableStream] of Object.entries(builds)) {
      for (let filler = 1900; filler < 2100; filler++) {
        const html = await render(renderToPipeableStream, filler, text);
        expect(html.includes(0), `${build} build, filler ${filler}`).toBe(false);
        expect(html.toString('utf8')).toContain(text);
      }
    }
  });
});
