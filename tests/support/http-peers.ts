import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// Small HTTP peers for the WordPress tests: a forwarding proxy in front of the test WordPress that
// can hold back answers (a "timeout" after the site did the work) or strip the Authorization
// header (as some hosts do), and plain servers that answer whatever a test wants.

export type Peer = { url: string; close: () => Promise<void> };

function listen(server: http.Server): Promise<Peer> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export type Proxy = Peer & {
  /** Holds back the answer to the next `count` requests matching `match` by `ms` (the upstream still does the work). */
  delay(match: (req: http.IncomingMessage) => boolean, ms: number, count?: number): void;
  /** Answers the next `count` requests matching `match` with `status` itself (the upstream never sees them). */
  fail(match: (req: http.IncomingMessage) => boolean, status: number, count?: number): void;
  stripAuthorization: boolean;
  /** Requests seen, as "METHOD rest_route". */
  seen: string[];
};

export async function startProxy(target: string): Promise<Proxy> {
  const rules: { match: (req: http.IncomingMessage) => boolean; ms: number; left: number }[] = [];
  const failures: { match: (req: http.IncomingMessage) => boolean; status: number; left: number }[] = [];
  const state = { stripAuthorization: false, seen: [] as string[] };
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const route = new URL(req.url ?? '/', 'http://x').searchParams.get('rest_route') ?? req.url ?? '';
    state.seen.push(`${req.method} ${route}`);
    const failure = failures.find((f) => f.left > 0 && f.match(req));
    if (failure) {
      failure.left--;
      req.resume();
      res.writeHead(failure.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'proxy_failure', message: `HTTP ${failure.status} from the test proxy` }));
      return;
    }
    const rule = rules.find((r) => r.left > 0 && r.match(req));
    if (rule) rule.left--;
    const headers = { ...req.headers, host: upstream.host };
    if (state.stripAuthorization) delete headers.authorization;
    const out = http.request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(Buffer.concat(chunks));
        };
        if (rule) setTimeout(send, rule.ms);
        else send();
      });
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  const peer = await listen(server);
  const proxy = peer as Proxy;
  proxy.delay = (match, ms, count = 1) => void rules.push({ match, ms, left: count });
  proxy.fail = (match, status, count = 1) => void failures.push({ match, status, left: count });
  proxy.seen = state.seen;
  Object.defineProperty(proxy, 'stripAuthorization', {
    get: () => state.stripAuthorization,
    set: (v: boolean) => (state.stripAuthorization = v),
  });
  return proxy;
}

/** A server whose answers a test writes. */
export async function startPeer(handler: http.RequestListener): Promise<Peer> {
  return listen(http.createServer(handler));
}

export type ReceivedEvent = { id: string; type: string; data: Record<string, unknown>; verified: boolean };

/**
 * A webhook endpoint that records each delivery into `received`, with whether its Standard
 * Webhooks signature verifies under the endpoint's secret as it is then (a real verifier, not ours),
 * and answers 204.
 */
export async function startWebhookReceiver(secret: () => string, received: ReceivedEvent[]): Promise<Peer> {
  return startPeer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = true;
      try {
        new Webhook(secret()).verify(body, req.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
      received.push({ id: String(req.headers['webhook-id']), type: parsed.type, data: parsed.data, verified });
      res.writeHead(204).end();
    });
  });
}
