/**
 * SSR benchmark: `npm run bench:ssr` after `npm run build`.
 *
 * The production app (createApp of the compiled server, production build, NODE_ENV=production) runs in a
 * CHILD process (tests/bench/ssr-server.ts, compiled to plain JavaScript and run by node alone) on a
 * fresh database, together with a bare Express handler that returns a static page (another port,
 * same process): the baseline. This process drives autocannon against both,
 * so the load generator's memory never counts as server memory; the server's peak RSS is read
 * from /proc/<pid>/status (VmHWM) of the child.
 *
 * Targets: `/` signed out in en and in zh-HK (Accept-Language), `/app` signed in (a session row
 * inserted with createSession; also at 10 connections, whose p99 is the latency goal), the results
 * list (`/app?tab=results`, a full first page of results), `/subscription` and `/wordpress` signed
 * in, the bare handler, and the FRAMEWORK FLOOR (what Remix itself costs): a minimal
 * Remix route (one root route, a trivial loader, a document with <Scripts/>) rendered by the real
 * entry.server through @remix-run/express, on a third port of the same process; and that floor with
 * the app's whole route tree (empty route modules) at /app, on a fourth. 50 connections, a
 * warm-up, then a measured run per target. Also: the gzip size of the JavaScript the landing page
 * and the signed-in /app load (the language catalogue script included).
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Ports } from './ssr-server';
import { measureSequential, threadsCpuMs, type SequentialRow } from './ssr-sequential';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageJavaScript } from '../support/page-javascript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
/** `only`: the one-request-at-a-time measure alone; `0`: without it. */
const SEQUENTIAL = process.env.BENCH_SEQUENTIAL ?? 'yes';
const SEQUENTIAL_OPTIONS = {
  requests: Number(process.env.BENCH_SEQUENTIAL_REQUESTS ?? 200),
  warmup: Number(process.env.BENCH_SEQUENTIAL_WARMUP ?? 50),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
};
/** What every request asks for, as a browser does: compression is inside the figures. */
const BROWSER = { 'accept-encoding': 'gzip, deflate, br' };

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

/** The server's memory by part, to stderr (BENCH_MEMORY=1): what its RSS is made of after a target. */
async function memoryReport(child: ChildProcess, label: string) {
  type Report = { memory: NodeJS.MemoryUsage; spaces: { space_name: string; space_size: number; space_used_size: number }[] };
  const report = await new Promise<Report>((resolve) => {
    const on = (m: unknown) => {
      if (m && typeof m === 'object' && 'memory' in m) {
        child.off('message', on);
        resolve(m as Report);
      }
    };
    child.on('message', on);
    child.send('memory');
  });
  const mb = (n: number) => (n / 1048576).toFixed(0);
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = report.memory;
  const spaces = report.spaces.map((s) => `${s.space_name.replace('_space', '')} ${mb(s.space_size)}/${mb(s.space_used_size)}`).join(', ');
  process.stderr.write(
    `  memory after ${label}: rss ${mb(rss)} MB, heap ${mb(heapTotal)} MB (used ${mb(heapUsed)}), external ${mb(external)}, array buffers ${mb(arrayBuffers)}; spaces (size/used MB): ${spaces}\n`,
  );
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'build/index.js')) || !fs.existsSync(path.join(ROOT, 'build/server/app.js'))) {
    console.error('No production build: run `npm run build` first.');
    process.exit(1);
  }
  // The server side as plain JavaScript, next to the build so that its packages resolve.
  const serverScript = path.join(ROOT, 'build/bench/ssr-server.mjs');
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: [path.join(ROOT, 'tests/bench/ssr-server.ts')],
    outfile: serverScript,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
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

  // BENCH_STATEMENTS=1: the server reaches Postgres through a relay that counts its statements,
  // printed per signed-in page (each page asked once, after the others have warmed up).
  const { startStatementCounter } = await import('./statement-counter');
  const counter = process.env.BENCH_STATEMENTS ? await startStatementCounter(databaseUrl) : undefined;
  // The server logs a line per request as in production; its stdout goes to /dev/null.
  const child: ChildProcess = fork(serverScript, [], {
    env: counter ? { ...process.env, DATABASE_URL: counter.url } : process.env,
    // The flags of `npm start`.
    execArgv: (process.env.BENCH_SERVER_NODE_ARGS ?? '--max-semi-space-size=16 --heap-growing-percent=100').split(' ').filter(Boolean),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // BENCH_COMPARE=DIR: a second server from another checkout's production build (e.g. main's, in a
  // worktree, built there), on the same database; the one-at-a-time measure then takes each of
  // its targets in turn with this build's, so both see the same load on a shared machine.
  const compareRoot = process.env.BENCH_COMPARE ? path.resolve(process.env.BENCH_COMPARE) : undefined;
  let compare: ChildProcess | undefined;
  if (compareRoot) {
    const compareScript = path.join(compareRoot, 'build/bench/ssr-server.mjs');
    await esbuild({
      entryPoints: [path.join(ROOT, 'tests/bench/ssr-server.ts')],
      outfile: compareScript,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    });
    compare = fork(compareScript, [], {
      // BENCH_COMPARE_NODE_ARGS: the comparison server's own flags (the same build under other flags).
      execArgv: (
        process.env.BENCH_COMPARE_NODE_ARGS ??
        process.env.BENCH_SERVER_NODE_ARGS ??
        '--max-semi-space-size=16 --heap-growing-percent=100'
      )
        .split(' ')
        .filter(Boolean),
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
  }
  const stopAll = async () => {
    // A disconnect makes the child exit by itself, so flags such as --cpu-prof write their output.
    for (const server of compare ? [child, compare] : [child]) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      if (server.connected) server.disconnect();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      server.kill('SIGTERM');
    }
    const { closeSql } = await import('../../db/client');
    await closeSql();
    await counter?.close();
    await cluster.stop();
  };
  try {
    const ports = await new Promise<Ports>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ports));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const comparePorts =
      compare &&
      (await new Promise<Ports>((resolve, reject) => {
        compare.once('message', (m) => resolve(m as Ports));
        compare.once('exit', (code) => reject(new Error(`comparison server exited with ${code}`)));
      }));
    const appBase = `http://127.0.0.1:${ports.app}`;
    const bareBase = `http://127.0.0.1:${ports.bare}`;
    const floorBase = `http://127.0.0.1:${ports.floor}`;

    if (process.env.BENCH_MEMORY) await memoryReport(child, 'start-up');
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
    // A full first page of results (text, completed), so the results list renders its rows. Their
    // metadata holds the text's counts, as the generation worker writes them (a row without them is
    // counted on every read: an older row's path, not the page's).
    const [run] = await sql<{ id: string }[]>`
      INSERT INTO generation_runs (user_id, type, model, total) VALUES (${user!.id}, 'text', 'openai/gpt-4o-mini', 30) RETURNING id`;
    await sql`
      INSERT INTO generation_results (user_id, run_id, position, type, prompt, title, content, status, model, credits, created_at, metadata)
      SELECT ${user!.id}, ${run!.id}, i, 'text', 'topic ' || i, 'Bench post ' || i, '<p>Body of bench post ' || i || '</p>',
        'completed', 'openai/gpt-4o-mini', 1, now() - make_interval(secs => 30 - i),
        jsonb_build_object('originalPrompt', 'topic ' || i, 'characterCount', length('Body of bench post ' || i), 'wordCount', 5)
      FROM generate_series(1, 30) AS i`;
    // With the theme cookie the server sets on a signed-in page: a browser sends it back from its
    // second page on, so without it every request would read the settings once more for it.
    const signedIn = { ...BROWSER, 'accept-language': 'en', cookie: `${sessionCookie}; theme=light` };

    // The app's targets run before the baselines, so the server's peak RSS (VmHWM, which only grows)
    // is read before the baselines add their own: the floors' extra Remix handlers, and the bare
    // handler's garbage (at ~10,000 req/s it alone fills the old generation to ~100 MB, which V8
    // keeps until a full collection: the app's memory, not the baseline's, is the goal).
    const targets = [
      { name: '/ signed out, en', url: `${appBase}/`, headers: { ...BROWSER, 'accept-language': 'en-US,en;q=0.9' }, baseline: false },
      { name: '/ signed out, zh-HK', url: `${appBase}/`, headers: { ...BROWSER, 'accept-language': 'zh-HK,zh;q=0.9' }, baseline: false },
      { name: '/app signed in', url: `${appBase}/app`, headers: signedIn, baseline: false },
      // The same page at 10 connections: its p99 is the latency goal (at 50, p99 is queueing).
      { name: '/app, 10 connections', url: `${appBase}/app`, headers: signedIn, baseline: false, connections: 10 },
      { name: '/app results list', url: `${appBase}/app?tab=results`, headers: signedIn, baseline: false },
      { name: '/subscription', url: `${appBase}/subscription`, headers: signedIn, baseline: false },
      { name: '/wordpress', url: `${appBase}/wordpress`, headers: signedIn, baseline: false },
      { name: 'bare Express handler', url: `${bareBase}/`, headers: BROWSER as Record<string, string>, baseline: true },
      { name: 'Remix floor route', url: `${floorBase}/`, headers: BROWSER as Record<string, string>, baseline: true },
      {
        name: 'floor, app routes',
        url: `http://127.0.0.1:${ports.treeFloor}/app`,
        headers: BROWSER as Record<string, string>,
        baseline: true,
      },
    ];

    // BENCH_DUMP_DIR=DIR: each signed-in page's HTML, as served, into DIR (to count what a page renders).
    if (process.env.BENCH_DUMP_DIR) {
      fs.mkdirSync(process.env.BENCH_DUMP_DIR, { recursive: true });
      for (const [file, url] of [
        ['app.html', `${appBase}/app`],
        ['results.html', `${appBase}/app?tab=results`],
        ['subscription.html', `${appBase}/subscription`],
      ] as const) {
        const html = await (await fetch(url, { headers: { ...signedIn, 'accept-encoding': 'identity' } })).text();
        fs.writeFileSync(path.join(process.env.BENCH_DUMP_DIR, file), html);
      }
    }

    if (counter) {
      const pages = [
        ['/app signed in', `${appBase}/app`],
        ['/app results list', `${appBase}/app?tab=results`],
        ['/subscription', `${appBase}/subscription`],
      ] as const;
      for (const [, url] of pages) await fetch(url, { headers: signedIn }).then((r) => r.arrayBuffer());
      for (const [name, url] of pages) {
        counter.reset();
        await fetch(url, { headers: signedIn }).then((r) => r.arrayBuffer());
        process.stderr.write(`statements for ${name}: ${counter.total()}\n`);
        for (const [text, n] of counter.counts()) process.stderr.write(`  ${n} × ${text}\n`);
      }
    }

    // One request at a time: the signed-in pages, the landing page and the bare handler, in turns.
    let sequential: SequentialRow[] = [];
    if (SEQUENTIAL !== '0') {
      process.stderr.write(
        `one request at a time: ${SEQUENTIAL_OPTIONS.rounds} rounds of ${SEQUENTIAL_OPTIONS.warmup} + ${SEQUENTIAL_OPTIONS.requests} requests per target ...\n`,
      );
      const onlySequential = process.env.BENCH_SEQUENTIAL_TARGETS?.split(',');
      const sequentialTargets = [
        { name: '/app signed in', url: `${appBase}/app`, headers: signedIn },
        { name: '/app results list', url: `${appBase}/app?tab=results`, headers: signedIn },
        { name: '/subscription', url: `${appBase}/subscription`, headers: signedIn },
        // The same page without Accept-Encoding: the difference is what its compression costs.
        { name: '/app, uncompressed', url: `${appBase}/app`, headers: { ...signedIn, 'accept-encoding': 'identity' } },
        { name: '/ signed out, en', url: `${appBase}/`, headers: { ...BROWSER, 'accept-language': 'en-US,en;q=0.9' } },
        { name: 'bare Express handler', url: `${bareBase}/`, headers: BROWSER },
        // What Remix itself costs one at a time: the floor's minimal route, and with the app's route tree.
        { name: 'Remix floor route', url: `${floorBase}/`, headers: BROWSER },
        { name: 'floor, app routes', url: `http://127.0.0.1:${ports.treeFloor}/app`, headers: BROWSER },
      ]
        .filter((t) => t.name === 'bare Express handler' || !onlySequential || onlySequential.some((o) => t.name.includes(o)))
        .flatMap((t) => {
          const own = { ...t, pid: child.pid! };
          if (!comparePorts || t.name === 'bare Express handler') return [own];
          const port = t.url.startsWith(appBase)
            ? comparePorts.app
            : t.url.startsWith(floorBase)
              ? comparePorts.floor
              : comparePorts.treeFloor;
          const url = t.url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`);
          return [
            { ...own, group: t.name },
            { ...t, name: `${t.name} [compare]`, url, pid: compare!.pid!, group: t.name },
          ];
        });
      // BENCH_HTML_DIR=DIR: each page's HTML as served (decompressed), to compare what two builds render.
      const htmlDir = process.env.BENCH_HTML_DIR;
      if (htmlDir) {
        fs.mkdirSync(htmlDir, { recursive: true });
        for (const t of sequentialTargets) {
          const response = await fetch(t.url, { headers: t.headers });
          const file = path.join(htmlDir, t.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, ''));
          fs.writeFileSync(`${file}.html`, await response.text());
          fs.writeFileSync(`${file}.headers`, [...response.headers].map(([name, value]) => `${name}: ${value}\n`).join(''));
        }
      }
      sequential = await measureSequential(
        sequentialTargets,
        (t) => cpuMs(t.pid),
        (t) => threadsCpuMs(t.pid),
        SEQUENTIAL_OPTIONS,
      );
    }

    const only = process.env.BENCH_TARGETS?.split(',');
    const rows: {
      name: string;
      status: string;
      connections: number;
      rps: number;
      p50: number;
      p99: number;
      non2xx: number;
      errors: number;
      cpuPerReq: number;
      rss: number;
    }[] = [];
    let peakRss = 0;
    let hwm = 0;
    const concurrentTargets = SEQUENTIAL === 'only' ? [] : targets;
    for (const t of concurrentTargets.filter((t) => t.baseline || !only || only.some((o) => t.name.includes(o)))) {
      if (t.baseline && !hwm) hwm = vm(child.pid!, 'VmHWM');
      const probe = await fetch(t.url, { headers: t.headers, redirect: 'manual' });
      await probe.arrayBuffer();
      const status = `${probe.status}${probe.headers.get('x-page-cache') ? ` (${probe.headers.get('x-page-cache')})` : ''}`;
      process.stderr.write(`${t.name}: ${status}; warm-up ${WARMUP}s, measure ${DURATION}s ...\n`);
      const connections = t.connections ?? CONNECTIONS;
      await autocannon({ url: t.url, connections, duration: WARMUP, headers: t.headers });
      let runRss = 0;
      const sampler = setInterval(() => (runRss = Math.max(runRss, vm(child.pid!, 'VmRSS'))), 200);
      const cpuBefore = cpuMs(child.pid!);
      const r = await autocannon({ url: t.url, connections, duration: DURATION, headers: t.headers });
      const cpu = cpuMs(child.pid!) - cpuBefore;
      clearInterval(sampler);
      peakRss = Math.max(peakRss, runRss);
      if (process.env.BENCH_MEMORY) await memoryReport(child, t.name);
      const done = r['2xx'] + r.non2xx;
      rows.push({
        name: t.name,
        status,
        connections,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        cpuPerReq: done ? cpu / done : NaN,
        rss: runRss,
      });
    }
    if (rows.length) {
      const js = await pageJavaScript(appBase + '/', { 'accept-language': 'en' });
      const appJs = await pageJavaScript(appBase + '/app', { 'accept-language': 'en', cookie: `${sessionCookie}; theme=light` });

      // The bare handler first: every row is shown against it.
      rows.unshift(
        ...rows.splice(
          rows.findIndex((r) => r.name === 'bare Express handler'),
          1,
        ),
      );
      const base = rows[0]!.rps;
      const baseCpu = rows[0]!.cpuPerReq;
      const pad = (s: string, n: number) => s.padEnd(n);
      const num = (n: number, w: number, d = 0) => n.toFixed(d).padStart(w);
      console.log(
        `\nSSR benchmark: ${CONNECTIONS} connections unless told, ${DURATION}s per target after ${WARMUP}s warm-up, Node ${process.version}\n`,
      );
      console.log(
        `${pad('target', 24)}${pad('first response', 16)}${'conn'.padStart(5)}${'req/s'.padStart(9)}${'vs bare'.padStart(9)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'non-2xx'.padStart(9)}${'errors'.padStart(8)}${'CPU ms/req'.padStart(12)}${'CPU vs bare'.padStart(13)}${'RSS MB'.padStart(8)}`,
      );
      for (const r of rows) {
        console.log(
          `${pad(r.name, 24)}${pad(r.status, 16)}${num(r.connections, 5)}${num(r.rps, 9)}${(((r.rps / base) * 100).toFixed(1) + ' %').padStart(9)}${num(r.p50, 8)}${num(r.p99, 8)}${num(r.non2xx, 9)}${num(r.errors, 8)}${num(r.cpuPerReq, 12, 3)}${(((baseCpu / r.cpuPerReq) * 100).toFixed(1) + ' %').padStart(13)}${num(r.rss, 8)}`,
        );
      }
      console.log(
        '\n"CPU vs bare" is the server CPU time per request of the bare handler divided by the target\'s: the ratio the\n' +
          'throughputs would have on an otherwise idle machine (req/s ratios swing when other processes share the cores).\n' +
          '"RSS MB" is the highest server RSS sampled during that run.',
      );
      console.log(
        `\nserver peak RSS: ${hwm.toFixed(0)} MB (VmHWM of the server process after the app's targets, before the baselines; ` +
          `highest sampled VmRSS under load, floors included, ${peakRss.toFixed(0)} MB)`,
      );
      console.log(`landing page JavaScript: ${(js.total / 1024).toFixed(1)} KB gzip in ${js.files.length} files`);
      for (const f of js.files) console.log(`  ${pad(f.file, 48)}${num(f.raw / 1024, 8, 1)} KB raw${num(f.gzip / 1024, 8, 1)} KB gzip`);
      console.log(`/app (signed in) JavaScript: ${(appJs.total / 1024).toFixed(1)} KB gzip in ${appJs.files.length} files`);

      const row = (name: string) => rows.find((r) => r.name === name);
      const floorRow = row('Remix floor route')!;
      const appRow = row('/app signed in');
      const treeRow = row('floor, app routes')!;
      if (appRow) {
        console.log(
          `\n/app signed in vs the Remix floor: ${((appRow.rps / floorRow.rps) * 100).toFixed(1)} % of its req/s, ` +
            `${((floorRow.cpuPerReq / appRow.cpuPerReq) * 100).toFixed(1)} % by CPU per request; p99 ${appRow.p99} ms`,
        );
        console.log(
          `/app signed in vs the floor with the app's ${ports.routes} routes: ` +
            `${((appRow.rps / treeRow.rps) * 100).toFixed(1)} % of its req/s, ${((treeRow.cpuPerReq / appRow.cpuPerReq) * 100).toFixed(1)} % by CPU per request`,
        );
      }
      // Each goal as measured / limit: ≤ 1 meets a ceiling, ≥ 1 a floor. A target left out by
      // BENCH_TARGETS is reported as not measured, never as met.
      type Goal = { goal: string; value: number | null; limit: number; unit: string; atMost: boolean };
      const cpuOf = (name: string) => row(name)?.cpuPerReq ?? null;
      const share = (name: string, of: number) => (row(name) ? row(name)!.rps / of : null);
      const landing = rows.filter((r) => r.name.startsWith('/ signed out'));
      const goals: Goal[] = [
        { goal: '/app CPU per request', value: cpuOf('/app signed in'), limit: 5, unit: 'ms', atMost: true },
        {
          goal: 'floor with the app routes / floor, CPU',
          value: treeRow.cpuPerReq / floorRow.cpuPerReq,
          limit: 1.5,
          unit: '×',
          atMost: true,
        },
        {
          goal: '/app p99 at 10 connections',
          value: row('/app, 10 connections')?.p99 ?? null,
          limit: 150,
          unit: 'ms',
          atMost: true,
        },
        ...['/app results list', '/subscription', '/wordpress'].map((name) => ({
          goal: `${name} CPU per request`,
          value: cpuOf(name),
          limit: 8,
          unit: 'ms',
          atMost: true,
        })),
        { goal: '/app req/s / floor', value: share('/app signed in', floorRow.rps), limit: 0.7, unit: '', atMost: false },
        { goal: '/app req/s / bare', value: share('/app signed in', base), limit: 0.12, unit: '', atMost: false },
        { goal: '/ en req/s / bare', value: share('/ signed out, en', base), limit: 0.35, unit: '', atMost: false },
        { goal: '/ zh-HK req/s / bare', value: share('/ signed out, zh-HK', base), limit: 0.35, unit: '', atMost: false },
        { goal: '/ p99', value: landing.length ? Math.max(...landing.map((r) => r.p99)) : null, limit: 200, unit: 'ms', atMost: true },
        { goal: 'peak RSS', value: hwm, limit: 250, unit: 'MB', atMost: true },
        { goal: 'landing JS gzip', value: js.total / 1024, limit: 110, unit: 'KB', atMost: true },
        { goal: '/app JS gzip', value: appJs.total / 1024, limit: 150, unit: 'KB', atMost: true },
      ];
      console.log('\ngoals (measured / limit: a ceiling is met at ≤ 1.00, a floor at ≥ 1.00):');
      for (const g of goals) {
        const met = g.value === null ? null : g.atMost ? g.value <= g.limit : g.value >= g.limit;
        const shown =
          g.value === null ? 'not measured' : `${Number(g.value.toPrecision(3))}${g.unit} ${g.atMost ? '≤' : '≥'} ${g.limit}${g.unit}`;
        console.log(
          `  ${(met === null ? '-' : met ? 'ok' : 'MISSED').padEnd(7)}${pad(g.goal, 52)}${pad(shown, 26)}${g.value === null ? '' : `${(g.value / g.limit).toFixed(2)}`}`,
        );
      }
    }
    if (sequential.length) {
      const bare = sequential.find((r) => r.name === 'bare Express handler')!;
      console.log(
        `\nOne request at a time (Accept-Encoding: ${BROWSER['accept-encoding']}): ${SEQUENTIAL_OPTIONS.rounds} rounds of ` +
          `${SEQUENTIAL_OPTIONS.warmup} warm-up + ${SEQUENTIAL_OPTIONS.requests} requests per target; medians of the rounds\n`,
      );
      console.log(
        `${'target'.padEnd(24)}${'status'.padStart(7)}${'CPU ms/req'.padStart(12)}${'× bare'.padStart(9)}${'median CPU'.padStart(12)}${'median ms'.padStart(11)}   CPU ms/req (median) of each round`,
      );
      for (const r of sequential) {
        console.log(
          `${r.name.padEnd(24)}${String(r.status).padStart(7)}${r.cpuMs.toFixed(2).padStart(12)}${(r.cpuMs / bare.cpuMs).toFixed(1).padStart(9)}` +
            `${r.medianCpuMs.toFixed(2).padStart(12)}${r.medianMs.toFixed(2).padStart(11)}   ${r.rounds.map((x) => `${x.cpuMs.toFixed(2)} (${x.medianCpuMs.toFixed(2)})`).join(' ')}`,
        );
      }
      console.log('\none at a time (server CPU per request: a ceiling is met at ≤ 1.00):');
      for (const [name, limit] of [
        ['/app signed in', 5],
        ['/app results list', 6],
        ['/subscription', 6],
      ] as const) {
        const value = sequential.find((r) => r.name === name)?.cpuMs;
        if (value === undefined) continue;
        console.log(
          `  ${(value <= limit ? 'ok' : 'MISSED').padEnd(7)}${name.padEnd(52)}${`${value.toFixed(2)}ms ≤ ${limit}ms`.padEnd(26)}${(value / limit).toFixed(2)}`,
        );
      }
    }
    // BENCH_JSON=FILE: every figure as JSON, for scripts that compare runs.
    if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify({ concurrent: rows, sequential }, null, 2));
  } finally {
    await stopAll();
  }
}

await main();
