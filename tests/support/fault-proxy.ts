import net from 'node:net';

// A TCP proxy between the app and Postgres that the test can take down (every connection cut, new
// ones refused as by a stopped server) and bring back on the same port: a failover or a pooler restart, without touching the
// cluster other test files share. No vitest imports.

export type FaultProxy = {
  /** The upstream URL with the proxy's host and port. */
  url: string;
  down: () => void;
  up: () => void;
  close: () => Promise<void>;
};

export async function startFaultProxy(upstreamUrl: string): Promise<FaultProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const server = net.connect(Number(upstream.port), upstream.hostname);
    for (const [a, b] of [
      [client, server],
      [server, client],
    ] as const) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => (sockets.delete(a), b.destroy()));
      a.pipe(b);
    }
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const cutAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: url.toString(),
    down: () => {
      server.close();
      cutAll();
    },
    up: () => void listen(port),
    close: async () => {
      cutAll();
      if (server.listening) await new Promise((r) => server.close(r));
    },
  };
}
