import zlib from 'node:zlib';

export type PageScript = { file: string; raw: number; gzip: number };

/**
 * The JavaScript a browser loads with a page on its first visit: every same-origin script the HTML
 * names (script tags, module preloads, and the modules Remix's inline script imports: the manifest,
 * the entry and the route modules), each fetched and gzipped as the server would send it. The
 * language catalogue script counts too: it is JavaScript the page waits for.
 */
export async function pageJavaScript(url: string, headers: Record<string, string> = {}): Promise<{ files: PageScript[]; total: number }> {
  const html = await (await fetch(url, { headers })).text();
  const origin = new URL(url).origin;
  const refs = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) refs.add(m[1]!.replaceAll('&amp;', '&'));
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) refs.add(m[1]!);
  for (const m of html.matchAll(/import\s*(?:\*\s*as\s*\w+\s*from\s*)?\(?\s*"(\/build\/[^"]+\.js)"/g)) refs.add(m[1]!);
  const files: PageScript[] = [];
  for (const ref of [...refs].filter((r) => r.startsWith('/') && !r.endsWith('.css'))) {
    const response = await fetch(origin + ref);
    if (!response.ok) throw new Error(`${ref}: ${response.status}`);
    const body = Buffer.from(await response.arrayBuffer());
    files.push({ file: ref, raw: body.length, gzip: zlib.gzipSync(body).length });
  }
  return { files, total: files.reduce((s, f) => s + f.gzip, 0) };
}
