import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../db/embedded';

// A real WordPress for integration and end-to-end tests, from Debian's packages: a private MariaDB
// (own data folder, loopback port, no grant tables: it never leaves 127.0.0.1), a private copy of
// /usr/share/wordpress served by `php -S` with a router script, installed from PHP with wp_install(),
// with pretty permalinks and an Application Password for the admin.
//
// The first start on a machine builds a "golden" copy (installed database + WordPress files) in the
// OS temp folder; later starts copy it and are up in a few seconds. Each start is independent (its
// own ports and folders), so test files may run one each in parallel and stop their site at will.

const run = promisify(execFile);

const PACKAGES = ['wordpress', 'php-cli', 'php-mysql', 'mariadb-server'];
const WP_SOURCE = '/usr/share/wordpress';
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((p) => fs.existsSync(p)) ?? '/usr/sbin/mariadbd';
const CACHE_VERSION = 'v1';
export const WP_ADMIN_USER = 'admin';
const ADMIN_PASSWORD = 'postforge-admin-password';

export type WordPressSite = {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  username: string;
  /** The admin's Application Password (spaces as WordPress shows it). */
  appPassword: string;
  /** Stops the web server only (the site is "down"); the database keeps running. */
  stopSite(): Promise<void>;
  /** Starts the web server again on the same port. */
  startSite(): Promise<void>;
  /** Runs PHP with WordPress loaded; returns its standard output. */
  php(code: string): Promise<string>;
  /** Calls the site's REST API as the admin (route like `/wp/v2/posts?status=any`). */
  rest<T = unknown>(route: string, init?: RequestInit): Promise<{ status: number; body: T }>;
  /**
   * Copies a one-file plugin into wp-content/plugins/NAME/NAME.php (NAME: the file's name without
   * .php) and activates it through the REST API as the admin. Returns NAME/NAME.
   */
  installPlugin(file: string): Promise<string>;
  /** Activates or deactivates an installed plugin (NAME/NAME) through the REST API. */
  setPluginActive(plugin: string, active: boolean): Promise<void>;
  stop(): Promise<void>;
};

/** Installs the Debian packages when missing (CI and fresh machines), never starting their services. */
export function ensureWordPressPackages(): void {
  const missing = !fs.existsSync(`${WP_SOURCE}/wp-includes/version.php`) || !fs.existsSync(MARIADBD) || !hasPhp();
  if (!missing) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `A real WordPress for tests needs the Debian packages ${PACKAGES.join(' ')} (apt-get install --no-install-recommends).`,
    );
  }
  // Installing `wordpress` pulls in Apache and mariadb-server its service: keep both from starting.
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !fs.existsSync(policy);
  if (ownPolicy) fs.writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const opts = { env, stdio: 'inherit' as const };
    spawnSync('apt-get', ['update', '-qq'], opts);
    const res = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...PACKAGES], opts);
    if (res.status !== 0) throw new Error(`apt-get install ${PACKAGES.join(' ')} failed`);
  } finally {
    if (ownPolicy) fs.rmSync(policy, { force: true });
  }
}

function hasPhp(): boolean {
  return spawnSync('php', ['-r', 'echo extension_loaded("mysqli") ? "ok" : "no";'], { encoding: 'utf8' }).stdout === 'ok';
}

function wpVersion(): string {
  const text = fs.readFileSync(`${WP_SOURCE}/wp-includes/version.php`, 'utf8');
  return /\$wp_version\s*=\s*'([^']+)'/.exec(text)?.[1] ?? 'unknown';
}

async function waitForPort(port: number, proc: ChildProcess, what: string, log: () => string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${what} exited (${proc.exitCode}): ${log().slice(-2000)}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}: ${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A port from freePort() is only free until someone binds it: two picked back to back can be the
// same one (about 1 in 7,000 here), and then a TCP connect reaches the other server. So each server
// is started on its own fresh port and counted as up only when it says so itself: MariaDB in its
// log, WordPress by answering its REST index. A server that lost its port is started again on another.
const START_ATTEMPTS = 3;

async function waitForMariaDb(port: number, db: ReturnType<typeof startMariaDb>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (db.proc.exitCode !== null || db.proc.signalCode !== null) {
      throw new Error(`MariaDB exited (${db.proc.exitCode ?? db.proc.signalCode}): ${db.log().slice(-2000)}`);
    }
    if (db.log().includes('ready for connections')) return waitForPort(port, db.proc, 'MariaDB', db.log, timeoutMs);
    if (Date.now() > deadline) throw new Error(`MariaDB did not start on ${port}: ${db.log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startMariaDbOnFreePort(dataDir: string) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const db = startMariaDb(dataDir, port);
    try {
      await waitForMariaDb(port, db);
      return { ...db, port };
    } catch (error) {
      await stopProcess(db.proc);
      if (attempt >= START_ATTEMPTS) throw error;
    }
  }
}

/** Resolves once the server on `url` is this WordPress: its REST index lists the wp/v2 namespace. */
async function waitForWordPress(url: string, proc: ChildProcess, log: () => string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`php -S exited (${proc.exitCode ?? proc.signalCode}): ${log().slice(-2000)}`);
    }
    try {
      const res = await fetch(`${url}/?rest_route=/`, { signal: AbortSignal.timeout(5_000) });
      const text = await res.text();
      if (res.ok && (JSON.parse(text) as { namespaces?: string[] }).namespaces?.includes('wp/v2')) return;
      last = `HTTP ${res.status}: ${text.slice(0, 300)}`;
    } catch (error) {
      last = String((error as Error).cause ?? error);
    }
    if (Date.now() > deadline) throw new Error(`WordPress did not answer on ${url} (${last}): ${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stopProcess(proc: ChildProcess | undefined, { group = false, timeoutMs = 10_000 } = {}): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  const kill = (signal: NodeJS.Signals) => {
    try {
      if (group && proc.pid) process.kill(-proc.pid, signal);
      else proc.kill(signal);
    } catch {
      // already gone
    }
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => kill('SIGKILL'), timeoutMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      // Workers of the group that outlive their parent are stopped too.
      if (group) kill('SIGKILL');
      resolve();
    });
    kill('SIGTERM');
  });
}

function startMariaDb(dataDir: string, port: number) {
  let log = '';
  const args = [
    '--no-defaults',
    `--datadir=${dataDir}`,
    `--socket=${path.join(dataDir, 'mysqld.sock')}`,
    `--pid-file=${path.join(dataDir, 'mysqld.pid')}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-grant-tables',
    '--skip-name-resolve',
    '--skip-log-bin',
    '--innodb-buffer-pool-size=32M',
    '--innodb-log-file-size=8M',
    '--innodb-flush-log-at-trx-commit=0',
    '--innodb-doublewrite=0',
    '--performance-schema=0',
  ];
  if (process.getuid?.() === 0) args.push('--user=root');
  const proc = spawn(MARIADBD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  return { proc, log: () => log };
}

function wpConfig(dbPort: number, siteUrl: string): string {
  const salt = (name: string) => `define('${name}', '${crypto.randomBytes(24).toString('hex')}');`;
  return `<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', '127.0.0.1:${dbPort}');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
${['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'].map(salt).join('\n')}
$table_prefix = 'wp_';
define('WP_HOME', '${siteUrl}');
define('WP_SITEURL', '${siteUrl}');
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('FS_METHOD', 'direct');
define('WP_DEBUG', false);
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`;
}

// php -S: real files are served as they are; everything else (pretty permalinks, /wp-json/) goes to index.php.
const ROUTER = `<?php
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$file = __DIR__ . $path;
if ($path !== '/' && (is_file($file) || (is_dir($file) && is_file(rtrim($file, '/') . '/index.php')))) return false;
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = __DIR__ . '/index.php';
require __DIR__ . '/index.php';
`;

const PHP_INI = [
  '-d',
  'sendmail_path=/bin/true',
  '-d',
  'memory_limit=256M',
  '-d',
  'upload_max_filesize=32M',
  '-d',
  'post_max_size=32M',
  '-d',
  'display_errors=0',
];

// The web server keeps WordPress compiled between requests (OPcache is off for the CLI by default,
// and `php -S` is the CLI): requests take about half the time. Timestamps are checked on every
// request, so a plugin file a test writes is picked up at once.
const SERVER_INI = ['-d', 'opcache.enable_cli=1', '-d', 'opcache.revalidate_freq=0'];

async function phpEval(wpDir: string, code: string, prelude = ''): Promise<string> {
  const file = path.join(wpDir, `.pf-eval-${crypto.randomBytes(6).toString('hex')}.php`);
  fs.writeFileSync(file, `<?php\n$_SERVER['HTTP_HOST'] = '127.0.0.1';\n${prelude}\nrequire __DIR__ . '/wp-load.php';\n${code}\n`);
  try {
    const { stdout, stderr } = await run('php', [...PHP_INI, '-d', 'display_errors=stderr', '-d', 'log_errors=0', file], {
      cwd: wpDir,
      maxBuffer: 16 * 1024 * 1024,
    });
    if (!stdout.trim() && stderr.trim()) throw new Error(`PHP: ${stderr.slice(-2000)}`);
    return stdout;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

type Golden = { dir: string; appPassword: string };

/** Builds (once per machine and WordPress version) an installed database and WordPress copy. */
async function golden(): Promise<Golden> {
  const dir = path.join(os.tmpdir(), `postforge-wp-golden-${CACHE_VERSION}-${wpVersion()}`);
  const metaFile = path.join(dir, 'meta.json');
  const lock = `${dir}.lock`;
  for (;;) {
    if (fs.existsSync(metaFile)) return { dir, ...(JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { appPassword: string }) };
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another test file is building it (or a stale lock from a killed run: give up on it after 3 min).
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const build = `${dir}.build-${process.pid}`;
  try {
    fs.rmSync(build, { recursive: true, force: true });
    fs.mkdirSync(build, { recursive: true });
    const dataDir = path.join(build, 'mysql');
    const wpDir = path.join(build, 'wordpress');
    const install = [
      '--no-defaults',
      `--datadir=${dataDir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
    ];
    if (process.getuid?.() === 0) install.push('--user=root');
    await run('mariadb-install-db', install, { maxBuffer: 16 * 1024 * 1024 });
    await run('cp', ['-rL', WP_SOURCE, wpDir]);
    fs.writeFileSync(path.join(wpDir, 'router.php'), ROUTER);
    const db = await startMariaDbOnFreePort(dataDir);
    try {
      fs.writeFileSync(path.join(wpDir, 'wp-config.php'), wpConfig(db.port, 'http://127.0.0.1'));
      await phpCreateDb(db.port);
      const out = await phpEval(
        wpDir,
        `require_once ABSPATH . 'wp-admin/includes/upgrade.php';
wp_install('Postforge Test Site', '${WP_ADMIN_USER}', 'admin@example.com', true, '', '${ADMIN_PASSWORD}');
global $wp_rewrite;
$wp_rewrite->set_permalink_structure('/%postname%/');
$wp_rewrite->flush_rules(false);
wp_insert_term('News', 'category');
wp_insert_term('Guides', 'category');
list($password) = WP_Application_Passwords::create_new_application_password(1, array('name' => 'postforge-tests'));
echo json_encode(array('appPassword' => WP_Application_Passwords::chunk_password($password)));`,
        "define('WP_INSTALLING', true);",
      );
      const meta = JSON.parse(out.trim().split('\n').pop()!) as { appPassword: string };
      fs.writeFileSync(path.join(build, 'meta.json'), JSON.stringify(meta));
    } finally {
      await stopProcess(db.proc);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(build, dir);
    return { dir, ...(JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { appPassword: string }) };
  } finally {
    fs.rmSync(build, { recursive: true, force: true });
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

async function phpCreateDb(port: number) {
  await run('php', [
    '-r',
    `$m = new mysqli('127.0.0.1', 'root', '', '', ${port}); $m->query('CREATE DATABASE IF NOT EXISTS wordpress CHARACTER SET utf8mb4'); echo 'ok';`,
  ]);
}

/** Starts a private WordPress (see the top of this file); `stop()` removes everything it made. */
export async function startWordPress(): Promise<WordPressSite> {
  ensureWordPressPackages();
  const gold = await golden();
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postforge-wp-run-'));
  const dataDir = path.join(runDir, 'mysql');
  const wpDir = path.join(runDir, 'wordpress');
  await run('cp', ['-a', path.join(gold.dir, 'mysql'), dataDir]);
  await run('cp', ['-a', path.join(gold.dir, 'wordpress'), wpDir]);
  let db: Awaited<ReturnType<typeof startMariaDbOnFreePort>> | undefined;
  let web: ChildProcess | undefined;
  let webLog = '';
  let webPort = 0;
  const url = () => `http://127.0.0.1:${webPort}`;

  const startSite = async () => {
    // Already up: a second server on the same port would fail to bind and orphan the first.
    if (web && web.exitCode === null && web.signalCode === null) return;
    webLog = '';
    web = spawn('php', [...PHP_INI, ...SERVER_INI, '-S', `127.0.0.1:${webPort}`, '-t', wpDir, path.join(wpDir, 'router.php')], {
      cwd: wpDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
      // Its own process group: stopping the site stops the server's worker processes too.
      detached: true,
    });
    web.stdout!.on('data', (d: Buffer) => (webLog = (webLog + d.toString()).slice(-20_000)));
    web.stderr!.on('data', (d: Buffer) => (webLog = (webLog + d.toString()).slice(-20_000)));
    try {
      await waitForWordPress(url(), web, () => webLog);
    } catch (error) {
      await stopSite();
      throw error;
    }
  };
  const stopSite = async () => {
    await stopProcess(web, { group: true });
    web = undefined;
  };
  const stop = async () => {
    await stopSite();
    await stopProcess(db?.proc);
    fs.rmSync(runDir, { recursive: true, force: true });
  };

  try {
    db = await startMariaDbOnFreePort(dataDir);
    // The site's address is in its configuration, so a new port means a new wp-config.php.
    for (let attempt = 1; ; attempt++) {
      webPort = await freePort();
      fs.writeFileSync(path.join(wpDir, 'wp-config.php'), wpConfig(db.port, url()));
      try {
        await startSite();
        break;
      } catch (error) {
        if (attempt >= START_ATTEMPTS) throw error;
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const auth = `Basic ${Buffer.from(`${WP_ADMIN_USER}:${gold.appPassword}`).toString('base64')}`;
  const site: WordPressSite = {
    url: url(),
    username: WP_ADMIN_USER,
    appPassword: gold.appPassword,
    stopSite,
    startSite,
    php: (code) => phpEval(wpDir, code),
    async rest<T>(route: string, init: RequestInit = {}) {
      const [p, q] = route.split('?');
      const target = `${url()}/?rest_route=${encodeURIComponent(p!)}${q ? `&${q}` : ''}`;
      const headers = new Headers(init.headers);
      headers.set('Authorization', auth);
      const res = await fetch(target, { ...init, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: body as T };
    },
    async installPlugin(file) {
      const name = path.basename(file, '.php');
      fs.mkdirSync(path.join(wpDir, 'wp-content', 'plugins', name), { recursive: true });
      fs.copyFileSync(file, path.join(wpDir, 'wp-content', 'plugins', name, `${name}.php`));
      await site.setPluginActive(`${name}/${name}`, true);
      return `${name}/${name}`;
    },
    async setPluginActive(plugin, active) {
      const res = await site.rest<{ status?: string }>(`/wp/v2/plugins/${plugin}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: active ? 'active' : 'inactive' }),
      });
      if (res.body.status !== (active ? 'active' : 'inactive'))
        throw new Error(`plugin ${plugin}: ${JSON.stringify(res.body).slice(0, 300)}`);
    },
    stop,
  };
  return site;
}
