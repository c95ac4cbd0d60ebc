// A TCP relay between the app and Postgres that counts the statements the app runs, by their text:
// `bench:generation` reports statements per item from it (BENCH_STATEMENTS=1). It reads the
// frontend side of the wire protocol only: a simple Query ('Q') is one statement; in the extended
// protocol, Parse ('P') names a statement's text and each Execute ('E') runs the portal last bound
// (Bind, 'B') on that connection. TLS is not relayed (the bench's Postgres is local, without it).
import net from 'node:net';

export type StatementCounter = {
  /** postgres:// URL of the relay (the given URL with its host and port replaced). */
  url: string;
  /** Executions by statement text (whitespace folded, cut to 160 characters), since the last reset. */
  counts: () => Map<string, number>;
  total: () => number;
  reset: () => void;
  close: () => Promise<void>;
};

const fold = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 160);

export async function startStatementCounter(databaseUrl: string): Promise<StatementCounter> {
  const target = new URL(databaseUrl);
  let counts = new Map<string, number>();
  const count = (text: string) => counts.set(text, (counts.get(text) ?? 0) + 1);
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const named = new Map<string, string>(); // prepared statement name → text
    let bound = '';
    let started = false;
    let buf = Buffer.alloc(0);
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (!started) {
          // The startup message (or an SSLRequest) has no type byte.
          if (buf.length < 8) break;
          const len = buf.readInt32BE(0);
          if (buf.length < len) break;
          const code = buf.readInt32BE(4);
          buf = buf.subarray(len);
          if (code !== 80877103) started = true; // not an SSLRequest: the startup itself
          continue;
        }
        if (buf.length < 5) break;
        const type = String.fromCharCode(buf[0]!);
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) break;
        const body = buf.subarray(5, 1 + len);
        buf = buf.subarray(1 + len);
        if (type === 'Q') count(fold(body.toString('utf8', 0, body.indexOf(0))));
        else if (type === 'P') {
          const nameEnd = body.indexOf(0);
          const name = body.toString('utf8', 0, nameEnd);
          named.set(name, fold(body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1))));
        } else if (type === 'B') {
          const portalEnd = body.indexOf(0);
          bound = named.get(body.toString('utf8', portalEnd + 1, body.indexOf(0, portalEnd + 1))) ?? '(unknown)';
        } else if (type === 'E') count(bound);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    counts: () => counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    reset: () => void (counts = new Map()),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
