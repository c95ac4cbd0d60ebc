import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EmbeddedRunningError,
  EmbeddedStartError,
  findBinaries,
  freePort,
  freePorts,
  postgresUser,
  reachableBinaries,
  reachableBy,
  runningPostmaster,
  startEmbeddedPostgres,
} from '../../db/embedded';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-embedded-'));
fs.chmodSync(root, 0o755);
const children: ChildProcess[] = [];
const servers: net.Server[] = [];
afterAll(async () => {
  for (const c of children) c.kill();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  fs.rmSync(root, { recursive: true, force: true });
});

async function startError(promise: Promise<unknown>): Promise<EmbeddedStartError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(EmbeddedStartError);
    return err as EmbeddedStartError;
  }
  throw new Error('expected an EmbeddedStartError');
}

describe('freePorts', () => {
  it('gives distinct ports that are free to bind', async () => {
    // 400 picks one after the other would almost surely repeat one (a birthday draw from ~14,000).
    const ports = await freePorts(400);
    expect(new Set(ports).size).toBe(400);
    const srv = net.createServer();
    servers.push(srv);
    await new Promise<void>((resolve) => srv.listen(ports[0], '127.0.0.1', resolve));
    expect((srv.address() as net.AddressInfo).port).toBe(ports[0]);
  });
});

describe('embedded Postgres start-up messages', () => {
  it('says what to do when its port is already taken', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    servers.push(blocker);
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    const err = await startError(startEmbeddedPostgres({ dataDir: path.join(root, 'taken'), port, persistent: false, fast: true }));
    expect(err.message).toContain(`Port ${port} is already in use`);
    expect(err.message).toMatch(/EMBEDDED_PG_PORT|DATABASE_URL/);
  });

  it('starts over a postmaster.pid whose pid now belongs to an unrelated live process', async () => {
    // Fails without the check that the pid really is this cluster's postmaster: the app refused to
    // start and told the operator to kill an unrelated process.
    const dataDir = path.join(root, 'reused-pid');
    const first = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: true, fast: true });
    await first.stop();
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(sleeper);
    expect(sleeper.pid).toBeTruthy();
    fs.writeFileSync(path.join(dataDir, 'postmaster.pid'), `${sleeper.pid}\n${dataDir}\n1700000000\n5433\n`);
    expect(runningPostmaster(dataDir)).toBeUndefined();
    const again = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: true });
    const sql = postgres(again.url, { max: 1, onnotice: () => {} });
    try {
      expect((await sql`SELECT 1 AS one`)[0]!.one).toBe(1);
    } finally {
      await sql.end();
      await again.stop();
    }
    expect(sleeper.exitCode).toBeNull(); // the unrelated process was left alone
  });

  it("says what to do when this cluster's own server still runs, and names its port", async () => {
    const dataDir = path.join(root, 'running');
    const port = await freePort();
    const live = await startEmbeddedPostgres({ dataDir, port, persistent: false, fast: true });
    try {
      const found = runningPostmaster(dataDir);
      expect(found?.port).toBe(port);
      const err = await startError(startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: true }));
      expect(err).toBeInstanceOf(EmbeddedRunningError);
      expect(err.message).toContain(`kill ${found!.pid}`);
      expect(err.message).toContain(dataDir);
    } finally {
      await live.stop();
    }
  });

  it('starts over the postmaster.pid of a server that no longer runs', async () => {
    const dataDir = path.join(root, 'crashed');
    const first = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: true, fast: true });
    await first.stop();
    // A dead process's pid, as a killed run leaves behind.
    const dead = spawn('true');
    await new Promise((r) => dead.on('exit', r));
    fs.writeFileSync(path.join(dataDir, 'postmaster.pid'), `${dead.pid}\n${dataDir}\n`);
    const again = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: true });
    const sql = postgres(again.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<
        { encoding: string }[]
      >`SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()`;
      expect(row!.encoding).toBe('UTF8');
    } finally {
      await sql.end();
      await again.stop();
    }
  });
});

describe('embedded Postgres as root under a folder others cannot enter', () => {
  // Fails without the relocation: the cluster runs as the `postgres` user, which cannot enter a
  // mode-700 home folder (initdb: EACCES), so `npm run app` died there.
  it.runIf(process.getuid?.() === 0)('keeps binaries and data where the postgres user can reach them, and starts', async () => {
    const home = path.join(root, 'home');
    fs.mkdirSync(home, { mode: 0o700 });
    fs.chmodSync(home, 0o700);
    const runtimeDir = path.join(root, 'runtime');
    const dataDir = path.join(home, 'project', '.data', 'postgres');
    const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: true, fast: true, runtimeDir });
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      expect((await sql`SELECT current_user AS u`)[0]!.u).toBe('postgres');
      expect(fs.lstatSync(dataDir).isSymbolicLink()).toBe(true);
      expect(fs.realpathSync(dataDir).startsWith(fs.realpathSync(runtimeDir))).toBe(true);
      expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
      // The running cluster is found through the link (what the CLI uses to join it).
      expect(runningPostmaster(dataDir)).toBeTruthy();
    } finally {
      await sql.end();
      await pg.stop();
    }
    // A second start finds its data again (persistent).
    const again = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: true, runtimeDir });
    await again.stop();
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)('copies binaries the postgres user cannot reach to where it can run them', async () => {
    const home = path.join(root, 'home2');
    fs.mkdirSync(home, { mode: 0o700 });
    fs.chmodSync(home, 0o700);
    const bin = await findBinaries();
    const nativeDir = path.join(home, 'node_modules', 'native');
    fs.cpSync(bin.nativeDir, nativeDir, { recursive: true, verbatimSymlinks: true });
    const hidden = { ...bin, nativeDir, postgres: path.join(nativeDir, 'bin', 'postgres'), initdb: path.join(nativeDir, 'bin', 'initdb') };
    const ids = postgresUser();
    const asPostgres = (file: string) => spawnSync(file, ['--version'], { ...ids, encoding: 'utf8' });
    expect(asPostgres(hidden.postgres).status).not.toBe(0);
    const runtimeDir = path.join(root, 'runtime2');
    const usable = reachableBinaries(hidden, ids, runtimeDir);
    expect(usable.postgres.startsWith(runtimeDir)).toBe(true);
    expect(asPostgres(usable.postgres).stdout).toMatch(/PostgreSQL/);
    expect(asPostgres(usable.initdb).stdout).toMatch(/PostgreSQL/);
  });

  it("reachableBy reads the folders' mode bits", () => {
    const closed = path.join(root, 'closed');
    fs.mkdirSync(path.join(closed, 'inner'), { recursive: true });
    fs.chmodSync(closed, 0o700);
    const other = { uid: 4242, gid: 4242 };
    expect(reachableBy(path.join(closed, 'inner'), other)).toBe(false);
    fs.chmodSync(closed, 0o711);
    expect(reachableBy(path.join(closed, 'inner'), other)).toBe(true);
  });
});
