import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStartError, freePort, startEmbeddedPostgres } from '../../db/embedded';

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

  it('says what to do when a server left by an earlier run still holds the data folder', async () => {
    const dataDir = path.join(root, 'stale');
    fs.mkdirSync(dataDir, { recursive: true });
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(sleeper);
    expect(sleeper.pid).toBeTruthy();
    fs.writeFileSync(path.join(dataDir, 'postmaster.pid'), `${sleeper.pid}\n${dataDir}\n`);
    const err = await startError(startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: true }));
    expect(err.message).toContain(`pid ${sleeper.pid}`);
    expect(err.message).toContain(`kill ${sleeper.pid}`);
    expect(err.message).toContain(dataDir);
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
      const [row] = await sql<{ encoding: string }[]>`SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()`;
      expect(row!.encoding).toBe('UTF8');
    } finally {
      await sql.end();
      await again.stop();
    }
  });
});
