import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCookie } from '@remix-run/node';
import type { Sql } from '../../db/client';
import { freePorts } from '../../db/embedded';

// The compiled server (`npm run build` first) in its own processes, as an operator runs it: one
// Postgres, any number of copies of any ROLE. No vitest imports: benches use it too.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type Role = 'all' | 'web' | 'worker';

export type AppProcess = {
  role: Role;
  port: number;
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** Everything it wrote (stdout and stderr). */
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves once `/readyz` answers 200; rejects if the process exits first or after `ms`. */
  ready: (ms?: number) => Promise<void>;
  /** Sends the signal and waits for the exit; the exit code (null: killed by the signal). */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

export type StartOptions = {
  databaseUrl: string;
  /** Extra settings (provider URLs, concurrency...). */
  env?: Record<string, string>;
  port?: number;
};

const SESSION_SECRET = 'many-processes-session-secret-0123456789';

/** What every copy of a deployment shares (only what an operator sets: nothing inherited). */
export function deploymentEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    SESSION_SECRET,
    ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    LOG_LEVEL: 'warn',
  };
}

export async function startAppProcess(role: Role, opts: StartOptions): Promise<AppProcess> {
  const port = opts.port ?? (await freePorts(1))[0]!;
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['build/server/index.js'], {
    cwd: root,
    env: { ...deploymentEnv(opts.databaseUrl), APP_URL: url, ...opts.env, ROLE: role, PORT: String(port) },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A test or bench that ends early (an interrupted bench, a crashed run) takes its copies with it:
  // left running, they would retry their gone database for ever.
  const killOnExit = () => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const proc: AppProcess = {
    role,
    port,
    url,
    child,
    output: () => output,
    exited,
    ready: async (ms = 60_000) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${role} on ${port} exited (${child.exitCode ?? child.signalCode}) before ready:\n${output}`);
        const status = await fetch(`${url}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${role} on ${port} not ready after ${ms} ms:\n${output}`);
    },
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  return proc;
}

/** Starts copies of the given roles at once (distinct ports) and waits until every one is ready. */
export async function startDeployment(roles: Role[], opts: StartOptions): Promise<AppProcess[]> {
  const ports = await freePorts(roles.length);
  const procs = await Promise.all(roles.map((role, i) => startAppProcess(role, { ...opts, port: ports[i] })));
  try {
    await Promise.all(procs.map((p) => p.ready()));
  } catch (err) {
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    throw err;
  }
  return procs;
}

/** A signed-in session for the user, valid on every copy of the deployment: the Cookie header value. */
export async function signIn(db: Sql, userId: string): Promise<string> {
  const id = crypto.randomBytes(32).toString('base64url');
  await db`INSERT INTO sessions (id, user_id, expires_at)
           VALUES (${crypto.createHash('sha256').update(id).digest('hex')}, ${userId}, now() + interval '1 day')`;
  return (await createCookie('__session', { path: '/', secrets: [SESSION_SECRET] }).serialize(id)).split(';')[0]!;
}

/** Starts a text run through a web process's JSON API, as a signed-in client does: the run's id. */
export async function startTextRun(app: AppProcess, cookie: string, prompts: string[]): Promise<string> {
  const res = await fetch(`${app.url}/api/generate/text`, {
    method: 'POST',
    headers: { cookie, origin: app.url, 'content-type': 'application/json' },
    body: JSON.stringify({ prompts: prompts.join('\n'), model: 'openai/gpt-4o-mini-search-preview' }),
  });
  if (!res.ok) throw new Error(`POST /api/generate/text on ${app.role}:${app.port}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { jobId: string }).jobId;
}

/** Runs `npm run ledger -- verify` (the compiled CLI) on the database: its exit code and output. */
export function ledgerVerify(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['build/server/ledger.js', 'verify'], { cwd: root, env: deploymentEnv(databaseUrl) });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}
