import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFetch } from '~/runtime/node-fetch.server';
import { toProviderError } from '~/services/providers.server';
import { startOpenAiServer, type OpenAiServer } from '../support/openai-server';

// The OpenAI client over node:http (the text provider's calls) answers and fails as over the
// global fetch: the same bodies, the same errors for our mapping (status, timeout, unreachable,
// malformed), compressed answers and redirects read as fetch reads them.

let openai: OpenAiServer;
let other: http.Server;
let otherUrl: string;

beforeAll(async () => {
  openai = await startOpenAiServer();
  // A server that compresses its answers and moves the endpoint (what a proxy in front may do).
  other = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const location = { '/same/chat/completions': '/chat/completions', '/away/chat/completions': `${openai.url}/chat/completions` }[
        req.url!
      ];
      if (location) {
        res.writeHead(307, { location });
        return res.end();
      }
      const content = `zipped for ${req.headers.authorization}`;
      const encoding = req.url === '/raw/chat/completions' ? 'deflate' : 'gzip';
      const zip = encoding === 'gzip' ? zlib.gzipSync : zlib.deflateRawSync;
      const body = zip(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content } }],
        }),
      );
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await openai.close();
  other.closeAllConnections();
  await new Promise((r) => other.close(r));
});

const client = (baseURL: string, timeout = 10_000) => new OpenAI({ apiKey: 'sk-node', baseURL, maxRetries: 0, timeout, fetch: nodeFetch });
const ask = (c: OpenAI, topic: string) =>
  c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `Write about: ${topic}` }], max_tokens: 5 });
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err) => toProviderError(err),
  );

describe('nodeFetch under the OpenAI client', () => {
  it('sends the request whole (key, body) and reads the answer', async () => {
    const res = await ask(client(openai.url), 'node fetch ok');
    expect(res.choices[0]!.message.content).toContain('node fetch ok');
    const seen = openai.requests.find((r) => r.topic === 'node fetch ok')!;
    expect(seen).toMatchObject({ authorization: 'Bearer sk-node', model: 'm', max_tokens: 5 });
    // Several at once over kept-alive connections.
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(client(openai.url), `many ${i}`)));
    expect(many.map((r) => r.choices[0]!.message.content!.includes(`many `))).toEqual(Array(20).fill(true));
  });

  it('fails as the global fetch does: status with Retry-After, malformed, timeout, unreachable', async () => {
    openai.setScript({
      'node 429': [{ kind: 'status', status: 429, retryAfter: '7', message: 'Slow down' }],
      'node malformed': [{ kind: 'malformed' }],
      'node hang': [{ kind: 'hang' }],
    });
    expect(await failureOf(ask(client(openai.url), 'node 429'))).toMatchObject({
      code: 'provider_rate_limited',
      retryable: true,
      retryAfterMs: 7000,
      detail: 'Slow down',
    });
    expect(await failureOf(ask(client(openai.url), 'node malformed'))).toMatchObject({ code: 'provider_malformed' });
    expect(await failureOf(ask(client(openai.url, 300), 'node hang'))).toMatchObject({ code: 'provider_timeout', retryable: true });
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await failureOf(ask(client(`http://127.0.0.1:${port}/v1`), 'nobody'))).toMatchObject({ code: 'provider_unreachable' });
    openai.setScript(undefined);
  });

  it('hands a JSON answer over as a Response: json, text, clone, its body as a stream, read once', async () => {
    const call = () =>
      nodeFetch(`${openai.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-node', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Write about: node response' }] }),
      });
    const res = await call();
    expect(res).toBeInstanceOf(Response);
    expect([res.status, res.ok, res.headers.get('content-type')]).toEqual([200, true, 'application/json']);
    const copy = res.clone();
    const json = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(json.choices[0]!.message.content).toContain('node response');
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    expect(JSON.parse(await copy.text())).toEqual(json);
    const streamed = await new Response((await call()).body).json();
    expect(streamed).toMatchObject({ object: 'chat.completion' });
    // A status answer reads the same way.
    const refused = await nodeFetch(`${openai.url}/chat/completions`, { method: 'POST', body: '{}' });
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([401, 'invalid_api_key']);
  });

  it('decodes a compressed answer; follows a redirect, the key only within the same origin', async () => {
    expect((await ask(client(otherUrl), 'zip')).choices[0]!.message.content).toBe('zipped for Bearer sk-node');
    expect((await ask(client(`${otherUrl}/same`), 'zip')).choices[0]!.message.content).toBe('zipped for Bearer sk-node');
    expect((await ask(client(`${otherUrl}/raw`), 'zip')).choices[0]!.message.content).toBe('zipped for Bearer sk-node');
    // Elsewhere the key is not sent: the provider there refuses the call.
    expect(await failureOf(ask(client(`${otherUrl}/away`), 'node moved'))).toMatchObject({ code: 'provider_auth' });
    expect(openai.requests.find((r) => r.topic === 'node moved')).toBeUndefined();
  });
});
