import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort, freePorts } from '../../db/embedded';
import { freshDatabase } from '../support/database';

// The real entry point as production runs it, in its own process.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-shutdown-'));
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function baseEnv(): NodeJS.ProcessEnv {
  // Only what a deployment would set: nothing inherited from the test runner's configuration.
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
}

// `npm start` and the Docker image run the compiled server (`npm test` builds it first). tsx is a
// development tool only: its signal relay is not production's concern.
const launchers: Record<string, readonly [string, readonly string[]]> = {
  'node build/server/index.js': [process.execPath, ['build/server/index.js']],
};
type Launcher = string;

/** `ownGroup`: its own process group, as a terminal runs a command (Ctrl-C signals the whole group). */
function run(env: NodeJS.ProcessEnv, launcher: Launcher = 'node build/server/index.js', ownGroup = false) {
  const [command, args] = launchers[launcher]!;
  const child = spawn(command, [...args], { cwd: root, env, detached: ownGroup });
  children.push(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(true));
  });

describe('process lifecycle', () => {
  it.each(Object.keys(launchers) as Launcher[])(
    '%s stops cleanly on SIGTERM: stops listening, finishes, exits 0',
    async (launcher) => {
      const port = await freePort();
      const proc = run(
        {
          ...baseEnv(),
          PORT: String(port),
          DATABASE_URL: await freshDatabase(inject('clusterUrl'), 'pf_shutdown'),
          SESSION_SECRET: 'shutdown-test-session-secret-0123456789',
          ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
        },
        launcher,
      );
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, `/readyz (${proc.output()})`, 45_000);
      expect(await (await fetch(`${base}/healthz`)).text()).toBe('ok');

      // An idle keep-alive connection must not hold the shutdown up.
      const idle = net.connect(port, '127.0.0.1');
      await new Promise((r) => idle.once('connect', r));
      idle.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
      await new Promise((r) => idle.once('data', r));

      // A request in flight: its body is only half sent when SIGTERM arrives.
      const body = JSON.stringify({ email: 'in-flight@example.com', password: 'not-the-password' });
      const slow = net.connect(port, '127.0.0.1');
      await new Promise((r) => slow.once('connect', r));
      let answer = '';
      slow.on('data', (d) => (answer += d));
      const answered = new Promise<void>((r) => slow.once('end', () => r()));
      slow.write(
        `POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
          body.slice(0, 10),
      );
      await new Promise((r) => setTimeout(r, 200));

      proc.child.kill('SIGTERM');
      await waitFor(async () => proc.output().includes('shutting down'), 'the shutdown to begin');
      // The server no longer accepts connections, but the process waits for the request in flight.
      await waitFor(() => refused(port), 'the listener to close');
      expect(proc.child.exitCode).toBeNull();
      slow.write(body.slice(10));
      await answered;
      expect(answer).toMatch(/^HTTP\/1\.1 (\d{3})/);
      expect(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)![1])).toBeLessThan(500);

      const code = await proc.exited;
      idle.destroy();
      expect(code, proc.output()).toBe(0);
      expect(proc.output()).toContain('shutting down');
      expect(proc.output()).toContain('stopped');
      expect(await refused(port)).toBe(true);
    },
    60_000,
  );

  it('refuses to start in production without SESSION_SECRET, naming it', async () => {
    const proc = run({ ...baseEnv(), PORT: String(await freePort()), ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') });
    const code = await proc.exited;
    expect(code).not.toBe(0);
    expect(proc.output()).toContain('SESSION_SECRET');
  }, 30_000);

  it('refuses to start in production without ENCRYPTION_KEY, naming it', async () => {
    const proc = run({ ...baseEnv(), PORT: String(await freePort()), SESSION_SECRET: 'shutdown-test-session-secret-0123456789' });
    const code = await proc.exited;
    expect(code).not.toBe(0);
    expect(proc.output()).toContain('ENCRYPTION_KEY');
  }, 30_000);
  it("with no DATABASE_URL (the README's `npm run app`), it starts its embedded PostgreSQL, serves, and stops both on Ctrl-C", async () => {
    // Nothing may touch the database while the modules load: the embedded one starts after them.
    // Two ports picked one after the other may be the same one: freePorts keeps them apart.
    const [port, pgPort] = await freePorts(2);
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-newcomer-'));
    fs.chmodSync(own, 0o755);
    // `npm run app` does not set NODE_ENV: not production, so it makes its own secrets.
    const proc = run(
      { ...baseEnv(), NODE_ENV: 'development', DATA_DIR: own, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort) },
      'node build/server/index.js',
      true,
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, `/readyz (${proc.output()})`, 90_000);
      expect((await fetch(`${base}/`)).status).toBe(200);
      // Ctrl-C in a terminal signals the whole process group: the database must outlive the app's
      // graceful shutdown (its own group), not die under it with errors in the log.
      process.kill(-proc.child.pid!, 'SIGINT');
      expect(await proc.exited, proc.output()).toBe(0);
      expect(proc.output()).not.toMatch(/DATABASE_URL is not set/);
      expect(proc.output()).not.toMatch(/terminating connection|"level":50/);
      expect(await refused(pgPort)).toBe(true);
    } finally {
      fs.rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);
});
