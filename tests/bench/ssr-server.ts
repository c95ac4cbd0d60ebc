/**
 * The server side of bench:ssr (tests/bench/ssr.ts), in a process of its own: the compiled
 * production server (build/server/app.js, NODE_ENV=production) next to its baselines: a bare
 * Express handler returning a static page, the framework floor (a minimal Remix route rendered by
 * the real entry.server through @remix-run/express), and that floor with the app's whole route tree
 * (empty route modules). ssr.ts compiles this file to plain JavaScript and runs it with node alone:
 * under tsx the process would carry ~100 MB more RSS than `npm start` does, and RSS is a goal.
 * It sends the ports over IPC and exits when the parent disconnects.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Run from build/bench/ (compiled) as from tests/bench/: the project is two levels up either way.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const BARE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Postforge</title></head>
<body><h1>Postforge</h1><p>A static page served by a bare Express handler.</p></body></html>`;

export type Ports = { app: number; bare: number; floor: number; treeFloor: number; routes: number };

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

type ServerParts = typeof import('../../server') &
  Pick<typeof import('../../app/runtime/env.server'), 'loadEnv'> &
  Pick<typeof import('../../app/runtime/logger.server'), 'getLogger'> &
  Pick<typeof import('../../db/client'), 'getSql'>;

async function serve() {
  const { default: express } = await import('express');
  // The compiled server, as `npm start` and the image run it.
  const compiled = pathToFileURL(path.join(ROOT, 'build/server/app.js')).href;
  const { createApp, loadBuild, loadEnv, getLogger, getSql } = (await import(compiled)) as ServerParts;
  const { createRequestHandler } = await import('@remix-run/express');

  const env = loadEnv();
  const build = await loadBuild();
  const app = createApp({ env, db: { sql: getSql(), embedded: false, close: async () => {} }, build, logger: getLogger() });
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
  // The parent asks for the heap's breakdown after a target (diagnostics printed with the table).
  process.on('message', (m) => {
    if (m !== 'memory') return;
    process.send!({ memory: process.memoryUsage(), spaces: v8.getHeapSpaceStatistics() });
  });
  process.on('disconnect', () => process.exit(0));
  // BENCH_ALLOCATIONS=FILE (with BENCH_MEMORY=1): a sampled profile of every allocation, collected
  // ones included, from start-up to the end of the first target (the app's targets come first):
  // where the garbage that the GC spends its time on comes from.
  const allocations = process.env.BENCH_ALLOCATIONS;
  if (allocations) {
    const { Session } = await import('node:inspector/promises');
    const session = new Session();
    session.connect();
    const options = { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
    await session.post('HeapProfiler.startSampling', options);
    // The parent asks for the memory report at start-up, then after each target.
    let reports = 0;
    process.on('message', async () => {
      if (++reports !== 2) return;
      const { profile } = await session.post('HeapProfiler.stopSampling');
      (await import('node:fs')).writeFileSync(allocations, JSON.stringify(profile));
    });
  }
}

await serve();
