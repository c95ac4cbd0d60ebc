import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig } from '@playwright/test';
import { freePort } from '../../db/embedded';
import { freshDatabase, startTestCluster, type TestCluster } from '../support/database';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server';
import { startE2eProviders, type E2eProviders } from './generation-providers';
import { startStripeServer, stripeEnv, type TestStripe } from '../support/stripe-server';
import { startWordPress, type WordPressSite } from '../support/wordpress';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The app's secrets, also given to the test workers: fixtures.ts signs users in with the app's own
// session service, which signs the cookie with SESSION_SECRET (and reads the rest of the app's settings).
const APP_SECRETS = {
  SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
  ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
};
const READY_TIMEOUT_MS = 60_000;
// How long publish-now waits for the site before answering "it finishes in the background" (20 s in
// production). Shorter here so the slow-site test needs a site only a few seconds slower than this
// (each second is test time, twice); still several times what a publish to the test WordPress takes.
const PUBLISH_WAIT_SECONDS = '8';
const STOP_TIMEOUT_MS = 30_000;

// Handed to the test workers through environment variables they inherit (read in fixtures.ts).
const E2E_ENV = {
  baseUrl: 'E2E_BASE_URL',
  mailboxUrl: 'E2E_MAILBOX_URL',
  databaseUrl: 'E2E_DATABASE_URL',
  stripeUrl: 'E2E_STRIPE_URL',
  wordpressUrl: 'E2E_WP_URL',
  wordpressUser: 'E2E_WP_USER',
  wordpressAppPassword: 'E2E_WP_APP_PASSWORD',
} as const;

function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function waitForReady(url: string, app: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (app.exitCode !== null || app.signalCode !== null) {
      throw new Error(`The app exited (code ${app.exitCode}, signal ${app.signalCode}) before it was ready:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The app did not answer /readyz within ${READY_TIMEOUT_MS / 1000} s:\n${tail(logFile)}`);
}

// Top-level entries the server does not need (or that are large or belong to other tools).
const NOT_COPIED = new Set(['node_modules', '.git', '.cache', '.data', 'test-results', 'playwright-report', 'tests']);

/**
 * A private copy of the app (sources and production build, node_modules linked) for the run, so an
 * engineer rebuilding or editing the shared work tree mid-run cannot swap assets under the server.
 * E2E_NO_SNAPSHOT=1 serves the work tree itself.
 */
function snapshotApp(tmp: string): string {
  if (process.env.E2E_NO_SNAPSHOT === '1') return ROOT;
  const dir = path.join(tmp, 'app');
  fs.mkdirSync(dir);
  for (const entry of fs.readdirSync(ROOT)) {
    if (NOT_COPIED.has(entry)) continue;
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true, verbatimSymlinks: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** SIGTERM, then wait for the exit; graceful shutdown must end with code 0. */
function stopApp(app: ChildProcess, logFile: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (app.exitCode !== null || app.signalCode !== null) {
      return reject(new Error(`The app had already exited (code ${app.exitCode}, signal ${app.signalCode}):\n${tail(logFile)}`));
    }
    const timer = setTimeout(() => {
      app.kill('SIGKILL');
      reject(new Error(`The app did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM:\n${tail(logFile)}`));
    }, STOP_TIMEOUT_MS);
    app.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`Graceful shutdown failed: the app exited with code ${code}, signal ${signal}:\n${tail(logFile)}`));
    });
    app.kill('SIGTERM');
  });
}

/**
 * Starts everything the end-to-end suite talks to: a Postgres cluster with a fresh migrated
 * database, an SMTP server that keeps every message, and the production build of the app as a
 * child process (`node build/server/index.js`, the compiled server that production runs,
 * NODE_ENV=production). Returns the teardown.
 */
export default async function globalSetup(_config: FullConfig) {
  if (!fs.existsSync(path.join(ROOT, 'build/index.js')) || !fs.existsSync(path.join(ROOT, 'build/server/index.js'))) {
    throw new Error('No production build: run `npm run build` before the end-to-end tests.');
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-e2e-'));
  const logFile = path.join(tmp, 'app.log');
  let cluster: TestCluster | undefined;
  let smtp: TestSmtpServer | undefined;
  let providers: E2eProviders | undefined;
  let stripe: TestStripe | undefined;
  let app: ChildProcess | undefined;
  let wordpress: WordPressSite | undefined;

  const cleanup = async () => {
    await wordpress?.stop().catch(() => {});
    if (app && app.exitCode === null && app.signalCode === null) app.kill('SIGKILL');
    await smtp?.stop().catch(() => {});
    await providers?.stop().catch(() => {});
    await stripe?.close().catch(() => {});
    await cluster?.stop().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  };

  try {
    cluster = await startTestCluster();
    const databaseUrl = await freshDatabase(cluster.url, 'pf_e2e');
    smtp = await startSmtpServer();
    // The AI providers' test servers (generation).
    providers = await startE2eProviders();
    // A real WordPress on loopback for tests/e2e/wordpress.spec.ts (hence ALLOW_PRIVATE_HOSTS below).
    wordpress = await startWordPress();
    stripe = await startStripeServer();
    // Picked after every test server is listening: a port from freePort() is free only until the
    // next server binds one, so nothing may start between here and the app.
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    stripe.setWebhookUrl(`${baseUrl}/webhooks/stripe`);

    const appDir = snapshotApp(tmp);
    const log = fs.openSync(logFile, 'a');
    // As `npm start` and the Docker image run it, without the npm wrapper in between, so SIGTERM
    // reaches the server itself and its exit code is the server's own.
    app = spawn(process.execPath, ['build/server/index.js'], {
      cwd: appDir,
      stdio: ['ignore', log, log],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        NODE_ENV: 'production',
        PORT: String(port),
        APP_URL: baseUrl,
        DATABASE_URL: databaseUrl,
        SMTP_URL: `smtp://127.0.0.1:${smtp.smtpPort}`,
        ...APP_SECRETS,
        DATA_DIR: path.join(tmp, 'data'),
        LOG_LEVEL: process.env.E2E_APP_LOG_LEVEL ?? 'warn',
        RATE_LIMIT_MULTIPLIER: '50',
        ROLE: 'all',
        ...providers.env,
        ...stripeEnv(stripe),
        ALLOW_PRIVATE_HOSTS: 'true',
        WORDPRESS_PUBLISH_WAIT_SECONDS: PUBLISH_WAIT_SECONDS,
      },
    });
    fs.closeSync(log);
    await waitForReady(baseUrl, app, logFile);

    process.env[E2E_ENV.baseUrl] = baseUrl;
    process.env[E2E_ENV.mailboxUrl] = smtp.mailboxUrl;
    process.env[E2E_ENV.databaseUrl] = databaseUrl;
    process.env[E2E_ENV.stripeUrl] = stripe.url;
    process.env[E2E_ENV.wordpressUrl] = wordpress.url;
    process.env[E2E_ENV.wordpressUser] = wordpress.username;
    process.env[E2E_ENV.wordpressAppPassword] = wordpress.appPassword;
    Object.assign(process.env, APP_SECRETS);
    // The app's own variable, so a spec knows the wait it has to outlast.
    process.env.WORDPRESS_PUBLISH_WAIT_SECONDS = PUBLISH_WAIT_SECONDS;
  } catch (err) {
    await cleanup();
    throw err;
  }

  return async () => {
    let failure: unknown;
    try {
      await stopApp(app!, logFile);
    } catch (err) {
      failure = err;
    }
    await smtp?.stop().catch(() => {});
    await providers?.stop().catch(() => {});
    await stripe?.close().catch(() => {});
    await wordpress?.stop().catch(() => {});
    await cluster?.stop();
    const appLog = tail(logFile, 200).trim();
    fs.rmSync(tmp, { recursive: true, force: true });
    if (failure) throw failure;
    // LOG_LEVEL=warn: anything the app logged is a warning or an error worth seeing.
    if (appLog) console.log(`\n[e2e] app log (warnings and errors):\n${appLog}\n`);
  };
}
