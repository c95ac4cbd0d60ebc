import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

// A `fetch` for the OpenAI client (its `fetch` option) over node:http(s) with kept-alive
// connections. The global fetch (undici) spends about twice the CPU on a JSON call: a Request, a
// WHATWG stream for each body, its own HTTP parser in WebAssembly. At a provider call per
// generated item that was the largest part of an item's CPU. The answer is still a real `Response`
// (read whole, then handed over), so the client's parsing, errors and retries are unchanged.
// Anything but a plain body (a stream, a form) goes to the global fetch.

/** Idle connections are closed after this long, as the global fetch does. */
const IDLE_MS = 4_000;
const MAX_REDIRECTS = 20;

const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

type Body = string | Uint8Array | undefined;

const plainBody = (body: unknown): body is Body => body == null || typeof body === 'string' || body instanceof Uint8Array;

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function decoded(buffer: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(buffer);
    case 'deflate':
      // Servers send it with or without its zlib wrapper; fetch reads both.
      try {
        return zlib.inflateSync(buffer);
      } catch {
        return zlib.inflateRawSync(buffer);
      }
    case 'br':
      return zlib.brotliDecompressSync(buffer);
    default:
      return buffer;
  }
}

const isJson = (type: string | undefined) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(type?.trim() ?? '');

/**
 * A JSON answer, read whole: text() and json() decode its bytes at once instead of through a web
 * stream (another copy and a dozen promises per call). The OpenAI client reads JSON answers only
 * so; a stream (`body`) is made only when something asks for it.
 */
class JsonResponse extends Response {
  readonly #bytes: Buffer;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null = null;

  constructor(bytes: Buffer, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  #take(): Buffer {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes;
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  override get body(): ReadableStream<Uint8Array> {
    return (this.#stream ??= new Response(this.#bytes).body!);
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(this.#take());
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  override async blob(): Promise<Blob> {
    return new Blob([this.#take()], { type: this.headers.get('content-type') ?? '' });
  }

  override clone(): Response {
    if (this.#used) throw new TypeError('Response.clone: Body has already been consumed.');
    return new JsonResponse(this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Body,
  signal: AbortSignal | null,
  redirects: number,
): Promise<Response> {
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`fetch failed: unsupported protocol ${url.protocol}`));
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
      reject(err);
    };
    const onAbort = () => fail(abortError(signal!));
    const request = url.protocol === 'https:' ? https.request : http.request;
    const req = request(url, { method, headers, agent }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      // Redirects are followed as fetch follows them (a 303, and a 301/302 of a POST, become a GET).
      if (location && [301, 302, 303, 307, 308].includes(status)) {
        res.resume();
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (redirects >= MAX_REDIRECTS) return reject(new TypeError('fetch failed: too many redirects'));
        const to = new URL(location, url);
        const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
        const next = { ...headers };
        if (toGet) for (const h of Object.keys(next)) if (h.startsWith('content-')) delete next[h];
        // The key goes to the origin it was meant for only.
        if (to.origin !== url.origin) for (const h of ['authorization', 'proxy-authorization', 'cookie']) delete next[h];
        return resolve(send(to, toGet ? 'GET' : method, next, toGet ? undefined : body, signal, redirects + 1));
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('aborted', () => fail(new TypeError('fetch failed: the connection closed during the answer')));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        try {
          const responseHeaders = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          const empty = status === 204 || status === 304 || method === 'HEAD';
          const payload = empty ? null : decoded(Buffer.concat(chunks), res.headers['content-encoding']);
          const init = { status, statusText: res.statusMessage, headers: responseHeaders };
          resolve(payload && isJson(res.headers['content-type']) ? new JsonResponse(payload, init) : new Response(payload, init));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', fail);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

/** `fetch` over node:http(s) for plain request bodies (see above); other calls go to the global fetch. */
export const nodeFetch: typeof fetch = (input, init = {}) => {
  if (input instanceof Request || !plainBody(init.body)) return fetch(input, init);
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, value] of new Headers(init.headers)) headers[name] = value;
  return send(new URL(input), (init.method ?? 'GET').toUpperCase(), headers, init.body as Body, init.signal ?? null, 0);
};
