import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, loadBuild } from '../../server';
import { getSql } from '../../db/client';
import { loadEnv, resetEnv } from '../../app/runtime/env.server';
import { getLogger } from '../../app/runtime/logger.server';
import { assertAnswerMatchesDocument } from './api-contract';

export type TestApp = { url: string; close: () => Promise<void> };

/**
 * The real Express app with the real Remix production build (run `npx remix build` first),
 * listening on a free loopback port, talking to the run's test database.
 */
export async function startTestApp(): Promise<TestApp> {
  // Read process.env afresh: a test file may set a variable (e.g. TRUST_PROXY) before starting it.
  resetEnv();
  const env = loadEnv();
  const app = createApp({
    env,
    db: { sql: getSql(), embedded: false, close: async () => {} },
    build: await loadBuild(),
    logger: getLogger(),
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tiny browser stand-in: keeps cookies, sends same-origin headers, does not follow redirects. */
export class TestClient {
  cookies = new Map<string, string>();
  /**
   * Each /api answer is checked against the OpenAPI document (api-contract.ts) unless a test turns
   * this off to look at an answer the document is not about.
   */
  checkContract = true;
  constructor(
    readonly baseUrl: string,
    readonly defaults: Record<string, string> = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.defaults)) if (!headers.has(k)) headers.set(k, v);
    if (this.cookies.size && !headers.has('cookie')) headers.set('cookie', this.cookieHeader());
    if (init.method && init.method !== 'GET' && !headers.has('origin')) headers.set('origin', this.baseUrl);
    const res = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    if (this.checkContract) await assertAnswerMatchesDocument(init.method ?? 'GET', path, res);
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=thu, 01 jan 1970/i.test(a.trim()));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request(path, { headers });
  }

  /** A plain HTML form post, as a browser without JavaScript sends it. */
  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /**
   * Start on the workspace as a browser without JavaScript does it: the first post answers with the
   * run's figures and a Confirm button (nothing spent), the second (with the figures agreed) starts.
   * Any other first answer (a refusal) is returned as it is.
   */
  async postStart(path: string, fields: Record<string, string>) {
    const first = await this.postForm(path, fields);
    if (first.status !== 200) return first;
    const page = await first.text();
    const confirmed = /name="confirmed" value="([^"]+)"/.exec(page)?.[1];
    if (!confirmed) throw new Error('Start answered without its confirm step');
    // The CSV draft's id goes back as the confirm step's form carries it (as a browser sends it back).
    const { topicsDraft: _sent, ...rest } = fields;
    const draft = /name="topicsDraft" value="([^"]+)"/.exec(page)?.[1];
    return this.postForm(path, { ...rest, ...(draft ? { topicsDraft: draft } : {}), confirmed });
  }

  postJson(path: string, body: unknown, headers: Record<string, string> = {}) {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }
}
