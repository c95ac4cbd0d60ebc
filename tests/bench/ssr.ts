/**
 * SSR benchmark (issue 2 §9): `npm run bench:ssr` after `npm run build`.
 *
 * The production app (createApp of the compiled server, production build, NODE_ENV=production) runs in a
 * CHILD process on a fresh database, together with a bare Express handler that returns a static
 * page (another port, same process): the baseline. This process drives autocannon against both,
 * so the load generator's memory never counts as server memory; the server's peak RSS is read
 * from /proc/<pid>/status (VmHWM) of the child.
 *
 * Targets: `/` signed out in en and in zh-HK (Accept-Language), `/app` signed in (a session row
 * inserted with createSession), the bare handler, and the FRAMEWORK FLOOR (issue 11): a minimal
 * Remix route (one root route, a trivial loader, a document with <Scripts/>) rendered by the real
 * entry.server through @remix-run/express, on a third port of the same process; and that floor with
 * the app's whole route tree (empty route modules) at /app, on a fourth. 50 connections, a
 * warm-up, then a measured run per target. Also: the gzip size of the JavaScript the landing page
 * loads (the language catalogue script included).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = fileURLToPath(import.meta.url);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

const BARE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Postforge</title></head>
<body><h1>Postforge</h1><p>A static page served by a bare Express handler.</p></body></html>`;

type Ports = { app: number; bare: number; floor: number; treeFloor: number; routes: number };

/** The floor's root: a minimal document with its loader's message (and an <Outlet/> for child routes). */
async function floorRoot(withOutlet: boolean) {
  const { createElement: h } = await import('react');
  const { Outlet, Scripts, useLoaderData } = await import('@remix-run/react');
  function Floor() {
    const data = useLoaderData() as { message: string };
    return h(
      'html',
      { lang: 'en' },
      h('head', null, h('meta', { charSet: 'utf-8' }), h('title', null, 'Floor')),
      h('body', null, h('h1', null, data.message), withOutlet ? h(Outlet) : null, h(Scripts)),
    );
  }
  return { default: Floor, loader: () => ({ message: 'A minimal Remix route' }) };
}

/** The real build reduced to one minimal root route: what any Remix page costs at the least. */
async function floorBuild(build: import('@remix-run/node').ServerBuild): Promise<import('@remix-run/node').ServerBuild> {
  const root = build.assets.routes.root!;
  return {
    ...build,
    routes: { root: { id: 'root', path: '', module: await floorRoot(false) } },
    assets: {
      ...build.assets,
      routes: {
        root: { ...root, hasLoader: true, hasAction: false, hasClientAction: false, hasClientLoader: false, hasErrorBoundary: false },
      },
    },
  } as import('@remix-run/node').ServerBuild;
}

/**
 * The floor with the app's own route tree: every route of the build (ids, paths, nesting) with an
 * empty module, the root a minimal document with an <Outlet/>. Remix matches a URL against the whole
 * tree several times per request (server match, data query, the render's router, the partial
 * manifest) and builds its route objects for every route; this row shows what that costs for this
 * app before any of its own code runs. Requested at /app, the URL of the signed-in target.
 */
async function routeTreeFloorBuild(build: import('@remix-run/node').ServerBuild): Promise<import('@remix-run/node').ServerBuild> {
  const rootModule = await floorRoot(true);
  const Empty = () => null;
  const routes: Record<string, unknown> = {};
  const assets: Record<string, unknown> = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const root = id === 'root';
    routes[id] = { ...route, module: root ? rootModule : { default: Empty } };
    assets[id] = {
      ...build.assets.routes[id]!,
      hasLoader: root,
      hasAction: false,
      hasClientAction: false,
      hasClientLoader: false,
      hasErrorBoundary: false,
    };
  }
  return { ...build, routes, assets: { ...build.assets, routes: assets } } as import('@remix-run/node').ServerBuild;
}

// ---------------------------------------------------------------- child: the server under test
async function serve() {
  const { default: express } = await import('express');
  // The compiled server (`npm run build`), as `npm start` and the image run it; else the sources.
  const compiled = path.join(ROOT, 'build/server/app.js');
  type ServerParts = typeof import('../../server') &
    Pick<typeof import('../../app/utils/env.server'), 'loadEnv'> &
    Pick<typeof import('../../app/utils/logger.server'), 'getLogger'> &
    Pick<typeof import('../../db/client'), 'getSql'>;
  const { createApp, loadBuild, loadEnv, getLogger, getSql } = fs.existsSync(compiled)
    ? ((await import(pathToFileURL(compiled).href)) as ServerParts)
    : {
        ...(await import('../../server')),
        ...(await import('../../app/utils/env.server')),
        ...(await import('../../app/utils/logger.server')),
        ...(await import('../../db/client')),
      };

  const env = loadEnv();
  const build = await loadBuild();
  const app = createApp({ env, db: { sql: getSql(), embedded: false, close: async () => {} }, build, logger: getLogger() });
  const { createRequestHandler } = await import('@remix-run/express');
  const floor = express();
  floor.disable('x-powered-by');
  floor.all(
    '*',
    createRequestHandler({ build: await floorBuild(build), mode: 'production', getLoadContext: () => ({ cspNonce: '', clientIp: '' }) }),
  );
  const treeFloor = express();
  treeFloor.disable('x-powered-by');
  treeFloor.all(
    '*',
    createRequestHandler({
      build: await routeTreeFloorBuild(build),
      mode: 'production',
      getLoadContext: () => ({ cspNonce: '', clientIp: '' }),
    }),
  );
  const bare = express();
  bare.disable('x-powered-by');
  bare.get('/', (_req, res) => void res.type('html').send(BARE_PAGE));

  const listen = (handler: http.RequestListener) =>
    new Promise<number>((resolve) => {
      const server = http.createServer(handler);
      server.keepAliveTimeout = 65_000;
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const ports: Ports = {
    app: await listen(app),
    bare: await listen(bare),
    floor: await listen(floor),
    treeFloor: await listen(treeFloor),
    routes: Object.keys(build.routes).length,
  };
  process.send!(ports);
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------- parent: the load generator
type AcResult = {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
};
type AcOptions = { url: string; connections: number; duration: number; headers?: Record<string, string> };
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: AcOptions) => Promise<AcResult>;

/** User + system CPU time of a process in ms (from /proc, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function vm(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function landingJavaScript(base: string): Promise<{ files: { file: string; raw: number; gzip: number }[]; total: number }> {
  const html = await (await fetch(base + '/', { headers: { 'accept-language': 'en' } })).text();
  const refs = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) refs.add(m[1]!.replaceAll('&amp;', '&'));
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) refs.add(m[1]!);
  // Remix's inline module script imports the manifest, the entry and the route modules.
  for (const m of html.matchAll(/import\s*(?:\*\s*as\s*\w+\s*from\s*)?\(?\s*"(\/build\/[^"]+\.js)"/g)) refs.add(m[1]!);
  const files = [];
  // Every same-origin script counts: the build's modules and the language catalogue script.
  for (const ref of [...refs].filter((r) => r.startsWith('/') && !r.endsWith('.css'))) {
    const body = Buffer.from(await (await fetch(base + ref)).arrayBuffer());
    files.push({ file: ref, raw: body.length, gzip: zlib.gzipSync(body).length });
  }
  return { files, total: files.reduce((s, f) => s + f.gzip, 0) };
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'build/index.js'))) {
    console.error('No production build: run `npm run build` first.');
    process.exit(1);
  }
  if (!fs.existsSync(path.join(ROOT, 'build/server/app.js')))
    console.log('(no build/server/app.js: the server runs from its sources under tsx; `npm run build` for the compiled server)');
  const { startTestCluster, freshDatabase } = await import('../support/database');
  const cluster = await startTestCluster();
  const databaseUrl = await freshDatabase(cluster.url, 'pf_bench');
  Object.assign(process.env, {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: 'bench-session-secret-0123456789abcdef',
    ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    APP_URL: 'http://127.0.0.1',
    DATA_DIR: path.join(ROOT, '.data/bench'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  });

  // The server logs a line per request as in production; its stdout goes to /dev/null.
  const child: ChildProcess = fork(SELF, ['--serve'], {
    execArgv: [...(process.env.BENCH_SERVER_NODE_ARGS ?? '--max-semi-space-size=4').split(' ').filter(Boolean), '--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const stopAll = async () => {
    // A disconnect makes the child exit by itself, so flags such as --cpu-prof write their output.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.connected) child.disconnect();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    child.kill('SIGTERM');
    const { closeSql } = await import('../../db/client');
    await closeSql();
    await cluster.stop();
  };
  try {
    const ports = await new Promise<Ports>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ports));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const appBase = `http://127.0.0.1:${ports.app}`;
    const bareBase = `http://127.0.0.1:${ports.bare}`;
    const floorBase = `http://127.0.0.1:${ports.floor}`;

    const { sql } = await import('../../db/client');
    const { createSession } = await import('../../app/services/sessions.server');
    const [user] = await sql<{ id: string }[]>`
      INSERT INTO users (email, name, password_hash) VALUES ('bench@example.com', 'Bench User', NULL) RETURNING id`;
    // A real account has its ledger rows (a bare users row would take the lazy monthly check's slow
    // path on every request).
    const { grantSignupCredits } = await import('../../app/services/ledger.server');
    await grantSignupCredits(user!.id);
    const { setCookie } = await createSession(user!.id);
    const sessionCookie = setCookie.split(';')[0]!;

    const targets = [
      { name: 'bare Express handler', url: `${bareBase}/`, headers: {} as Record<string, string> },
      { name: 'Remix floor route', url: `${floorBase}/`, headers: {} as Record<string, string> },
      { name: 'floor, app routes', url: `http://127.0.0.1:${ports.treeFloor}/app`, headers: {} as Record<string, string> },
      { name: '/ signed out, en', url: `${appBase}/`, headers: { 'accept-language': 'en-US,en;q=0.9' } },
      { name: '/ signed out, zh-HK', url: `${appBase}/`, headers: { 'accept-language': 'zh-HK,zh;q=0.9' } },
      { name: '/app signed in', url: `${appBase}/app`, headers: { 'accept-language': 'en', cookie: sessionCookie } },
    ];

    const only = process.env.BENCH_TARGETS?.split(',');
    const rows: {
      name: string;
      status: string;
      rps: number;
      p50: number;
      p99: number;
      non2xx: number;
      errors: number;
      cpuPerReq: number;
      rss: number;
    }[] = [];
    let peakRss = 0;
    for (const t of targets.filter((t, i) => i <= 2 || !only || only.some((o) => t.name.includes(o)))) {
      const probe = await fetch(t.url, { headers: t.headers, redirect: 'manual' });
      await probe.arrayBuffer();
      const status = `${probe.status}${probe.headers.get('x-page-cache') ? ` (${probe.headers.get('x-page-cache')})` : ''}`;
      process.stderr.write(`${t.name}: ${status}; warm-up ${WARMUP}s, measure ${DURATION}s ...\n`);
      await autocannon({ url: t.url, connections: CONNECTIONS, duration: WARMUP, headers: t.headers });
      let runRss = 0;
      const sampler = setInterval(() => (runRss = Math.max(runRss, vm(child.pid!, 'VmRSS'))), 200);
      const cpuBefore = cpuMs(child.pid!);
      const r = await autocannon({ url: t.url, connections: CONNECTIONS, duration: DURATION, headers: t.headers });
      const cpu = cpuMs(child.pid!) - cpuBefore;
      clearInterval(sampler);
      peakRss = Math.max(peakRss, runRss);
      const done = r['2xx'] + r.non2xx;
      rows.push({
        name: t.name,
        status,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        cpuPerReq: done ? cpu / done : NaN,
        rss: runRss,
      });
    }
    const hwm = vm(child.pid!, 'VmHWM');
    const js = await landingJavaScript(appBase);

    const base = rows[0]!.rps;
    const baseCpu = rows[0]!.cpuPerReq;
    const pad = (s: string, n: number) => s.padEnd(n);
    const num = (n: number, w: number, d = 0) => n.toFixed(d).padStart(w);
    console.log(`\nSSR benchmark: ${CONNECTIONS} connections, ${DURATION}s per target after ${WARMUP}s warm-up, Node ${process.version}\n`);
    console.log(
      `${pad('target', 24)}${pad('first response', 16)}${'req/s'.padStart(9)}${'vs bare'.padStart(9)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'non-2xx'.padStart(9)}${'errors'.padStart(8)}${'CPU ms/req'.padStart(12)}${'CPU vs bare'.padStart(13)}${'RSS MB'.padStart(8)}`,
    );
    for (const r of rows) {
      console.log(
        `${pad(r.name, 24)}${pad(r.status, 16)}${num(r.rps, 9)}${(((r.rps / base) * 100).toFixed(1) + ' %').padStart(9)}${num(r.p50, 8)}${num(r.p99, 8)}${num(r.non2xx, 9)}${num(r.errors, 8)}${num(r.cpuPerReq, 12, 3)}${(((baseCpu / r.cpuPerReq) * 100).toFixed(1) + ' %').padStart(13)}${num(r.rss, 8)}`,
      );
    }
    console.log(
      '\n"CPU vs bare" is the server CPU time per request of the bare handler divided by the target\'s: the ratio the\n' +
        'throughputs would have on an otherwise idle machine (req/s ratios swing when other processes share the cores).\n' +
        '"RSS MB" is the highest server RSS sampled during that run.',
    );
    console.log(
      `\nserver peak RSS: ${hwm.toFixed(0)} MB (VmHWM of the server process; highest sampled VmRSS under load ${peakRss.toFixed(0)} MB)`,
    );
    console.log(`landing page JavaScript: ${(js.total / 1024).toFixed(1)} KB gzip in ${js.files.length} files`);
    for (const f of js.files) console.log(`  ${pad(f.file, 48)}${num(f.raw / 1024, 8, 1)} KB raw${num(f.gzip / 1024, 8, 1)} KB gzip`);

    const row = (name: string) => rows.find((r) => r.name === name);
    // A target left out by BENCH_TARGETS is reported as not measured, never as met.
    const ratio = (name: string, min: number, of = base) => {
      const r = row(name);
      return r ? r.rps / of >= min : null;
    };
    const floorRow = row('Remix floor route')!;
    const appRow = row('/app signed in');
    if (appRow) {
      console.log(
        `\n/app signed in vs the Remix floor: ${((appRow.rps / floorRow.rps) * 100).toFixed(1)} % of its req/s, ` +
          `${((floorRow.cpuPerReq / appRow.cpuPerReq) * 100).toFixed(1)} % by CPU per request; p99 ${appRow.p99} ms`,
      );
      const treeRow = row('floor, app routes')!;
      console.log(
        `/app signed in vs the floor with the app's ${ports.routes} routes: ` +
          `${((appRow.rps / treeRow.rps) * 100).toFixed(1)} % of its req/s, ${((treeRow.cpuPerReq / appRow.cpuPerReq) * 100).toFixed(1)} % by CPU per request`,
      );
    }
    const pages = rows.filter((r) => r.name.startsWith('/'));
    const goals = [
      ['/app ≥ 70 % of the Remix floor', ratio('/app signed in', 0.7, floorRow.rps)],
      ['/app p99 < 150 ms', appRow ? appRow.p99 < 150 : null],
      ['/app ≥ 12 % of bare (issue 2)', ratio('/app signed in', 0.12)],
      ['/ en ≥ 35 % of bare', ratio('/ signed out, en', 0.35)],
      ['/ zh-HK ≥ 35 % of bare', ratio('/ signed out, zh-HK', 0.35)],
      ['p99 < 200 ms (/, /app)', pages.length ? pages.every((r) => r.p99 < 200) : null],
      ['peak RSS < 250 MB', hwm < 250],
      ['landing JS ≤ 110 KB gzip', js.total <= 110 * 1024],
    ] as const;
    console.log('\ngoals: ' + goals.map(([g, ok]) => `${ok === null ? 'not measured:' : ok ? 'ok' : 'MISSED'} ${g}`).join('; '));
  } finally {
    await stopAll();
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
