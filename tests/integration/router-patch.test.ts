/**
 * The patch of @remix-run/router (patches/@remix-run+router+1.23.3.patch, docs/development.md "Patched packages"):
 * route matching flattens and ranks a route tree once, not on every call, and ranks exactly as the
 * unpatched router does for every route of ours.
 *
 * The unpatched router is the installed file with the patch taken back out (`git apply -R` on a
 * copy); needs `npm run build` (the app's route manifest comes from build/index.js).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Route = { id: string; path?: string; index?: boolean; caseSensitive?: boolean; children?: Route[] };
type Branch = { path: string; score: number; routesMeta: { relativePath: string; route: Route }[] };
type Match = { route: Route; params: Record<string, string | undefined>; pathname: string; pathnameBase: string };
type RouterModule = {
  matchRoutes: (routes: Route[], location: string) => Match[] | null;
  matchPath: (pattern: string | { path: string; caseSensitive?: boolean; end?: boolean }, pathname: string) => unknown;
  createRouter: (init: { routes: Route[]; history: unknown }) => { routes: Route[]; patchRoutes: (id: string, children: Route[]) => void };
  createMemoryHistory: () => unknown;
  rankedForTest: (routes: Route[]) => Branch[];
};

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PATCH = path.join(ROOT, 'patches/@remix-run+router+1.23.3.patch');
const DIST = 'node_modules/@remix-run/router/dist';
const require = createRequire(import.meta.url);

let tmp: string;
let patched: RouterModule;
let patchedEsm: RouterModule;
let unpatched: RouterModule;

/** A copy of one router build with a hook to read its ranked branches (the function it matches with). */
function withRankHook(file: string, rankExpression: string, esm: boolean): string {
  const hook = esm
    ? `\nexport const rankedForTest = (routes) => ${rankExpression};\n`
    : `\nexports.rankedForTest = (routes) => ${rankExpression};\n`;
  // Without its source map comment: the map stays behind with the original.
  return fs.readFileSync(file, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '') + hook;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'router-patch-'));
  // The installed (patched) builds, CJS as Node loads it on the server and ESM as the browser bundle has it.
  const installedCjs = path.join(ROOT, DIST, 'router.cjs.js');
  const installedEsm = path.join(ROOT, DIST, 'router.js');
  fs.writeFileSync(path.join(tmp, 'patched.cjs'), withRankHook(installedCjs, 'flattenAndRankRoutes(routes)', false));
  fs.writeFileSync(path.join(tmp, 'patched.mjs'), withRankHook(installedEsm, 'flattenAndRankRoutes(routes)', true));
  // The same file with the patch reversed.
  const copy = path.join(tmp, DIST);
  fs.mkdirSync(copy, { recursive: true });
  fs.copyFileSync(installedCjs, path.join(copy, 'router.cjs.js'));
  fs.copyFileSync(installedEsm, path.join(copy, 'router.js'));
  execFileSync('git', ['apply', '-R', PATCH], { cwd: tmp });
  fs.writeFileSync(
    path.join(tmp, 'unpatched.cjs'),
    withRankHook(path.join(copy, 'router.cjs.js'), '{ const b = flattenRoutes(routes); rankRouteBranches(b); return b; }', false),
  );
  patched = require(path.join(tmp, 'patched.cjs')) as RouterModule;
  patchedEsm = (await import(pathToFileURL(path.join(tmp, 'patched.mjs')).href)) as RouterModule;
  unpatched = require(path.join(tmp, 'unpatched.cjs')) as RouterModule;
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A route tree whose routes count every read of the fields flattening reads. */
function countedTree(): { routes: Route[]; reads: () => number } {
  let reads = 0;
  const route = (id: string, fields: Omit<Route, 'id'>): Route => {
    const r = { id } as Route;
    for (const key of ['path', 'index', 'caseSensitive', 'children'] as const) {
      const value = fields[key];
      Object.defineProperty(r, key, {
        enumerable: true,
        get: () => {
          reads++;
          return value;
        },
      });
    }
    return r;
  };
  const routes = [
    route('root', {
      path: '',
      children: [
        route('index', { index: true }),
        route('app', { path: 'app', children: [route('run', { path: 'runs/:id' }), route('results', { path: 'results' })] }),
        route('lang', { path: ':lang?/about' }),
        route('splat', { path: '*' }),
      ],
    }),
  ];
  return { routes, reads: () => reads };
}

const ids = (m: Match[] | null) => m?.map((x) => x.route.id) ?? null;

describe('patched @remix-run/router', () => {
  for (const [name, load] of [
    ['CJS build (the server)', () => patched],
    ['ESM build (the browser bundle)', () => patchedEsm],
  ] as const) {
    it(`${name}: flattens and ranks a routes array once, not on every match`, () => {
      const { matchRoutes } = load();
      const { routes, reads } = countedTree();
      expect(ids(matchRoutes(routes, '/app/runs/42'))).toEqual(['root', 'app', 'run']);
      const afterFirst = reads();
      expect(afterFirst).toBeGreaterThan(0);
      for (const url of ['/app/runs/7', '/app/results', '/', '/en/about', '/about', '/nowhere/else']) matchRoutes(routes, url);
      // Unpatched, every call walks the tree again (each route's path, index, children: dozens of reads).
      expect(reads() - afterFirst).toBe(0);
      expect(ids(matchRoutes(routes, '/en/about'))).toEqual(['root', 'lang']);
      expect(ids(matchRoutes(routes, '/nowhere/else'))).toEqual(['root', 'splat']);
    });
  }

  it('the unpatched router (the reference below) walks the tree on every call', () => {
    const { routes, reads } = countedTree();
    unpatched.matchRoutes(routes, '/app/runs/42');
    const afterFirst = reads();
    unpatched.matchRoutes(routes, '/app/runs/7');
    expect(reads() - afterFirst).toBeGreaterThan(10);
  });

  it('an equally shaped new tree (as Remix builds for each render) matches its own route objects', () => {
    const make = () => countedTree().routes;
    const a = make();
    const b = make();
    const ma = patched.matchRoutes(a, '/app/runs/1')!;
    const mb = patched.matchRoutes(b, '/app/runs/2')!;
    expect(ids(mb)).toEqual(['root', 'app', 'run']);
    expect(mb[2]!.route).toBe(b[0]!.children![1]!.children![0]);
    expect(ma[2]!.route).toBe(a[0]!.children![1]!.children![0]);
    expect(mb[2]!.params).toEqual({ id: '2' });
    // A pathname another tree of this shape matched before (the remembered branch, rebound alone).
    const c1 = make();
    const mc = patched.matchRoutes(c1, '/app/runs/1')!;
    expect(mc[2]!.route).toBe(c1[0]!.children![1]!.children![0]);
    expect(mc[1]!.route).toBe(c1[0]!.children![1]);
    expect(patched.rankedForTest(c1).every((branch) => branch.routesMeta[0]!.route === c1[0])).toBe(true);
    // A differently shaped tree is ranked on its own.
    const c: Route[] = [{ id: 'only', path: 'app/runs/:id' }];
    expect(ids(patched.matchRoutes(c, '/app/runs/3'))).toEqual(['only']);
  });

  it('routes patched in by lazy route discovery are matched (patchRoutes drops the cache)', () => {
    const router = patched.createRouter({
      routes: [{ id: 'root', path: '/', children: [{ id: 'app', path: 'app' }] }],
      history: patched.createMemoryHistory(),
    });
    const tree = router.routes;
    expect(ids(patched.matchRoutes(tree, '/app/runs/5'))).toBeNull();
    router.patchRoutes('app', [{ id: 'run', path: 'runs/:id' }]);
    // The same top-level array, changed in place below it.
    expect(ids(patched.matchRoutes(tree, '/app/runs/5'))).toEqual(['root', 'app', 'run']);
    expect(ids(patched.matchRoutes(router.routes, '/app/runs/5'))).toEqual(['root', 'app', 'run']);
  });

  it('matchPath reuses its compiled pattern and answers as before', () => {
    for (const [pattern, url] of [
      ['/app/runs/:id', '/app/runs/9'],
      [{ path: '/App', caseSensitive: true }, '/app'],
      [{ path: '/app', end: false }, '/app/runs'],
      ['/files/*', '/files/a/b%2Fc'],
      ['/:lang?/about', '/about'],
    ] as const) {
      expect(patched.matchPath(pattern, url)).toEqual(unpatched.matchPath(pattern, url));
      expect(patched.matchPath(pattern, url)).toEqual(unpatched.matchPath(pattern, url));
    }
  });
});

describe("the app's route manifest", () => {
  let tree: Route[];
  beforeAll(async () => {
    const build = (await import(pathToFileURL(path.join(ROOT, 'build/index.js')).href)) as {
      routes: Record<string, { id: string; parentId?: string; path?: string; index?: boolean; caseSensitive?: boolean }>;
    };
    // The tree as @remix-run/server-runtime builds it (children in manifest order).
    const byParent = new Map<string, Route[]>();
    for (const r of Object.values(build.routes)) {
      const list = byParent.get(r.parentId ?? '') ?? [];
      list.push({ id: r.id, path: r.path, index: r.index, caseSensitive: r.caseSensitive });
      byParent.set(r.parentId ?? '', list);
    }
    const attach = (routes: Route[]): Route[] =>
      routes.map((r) => (byParent.has(r.id) ? { ...r, children: attach(byParent.get(r.id)!) } : r));
    tree = attach(byParent.get('')!);
    expect(Object.keys(build.routes).length).toBeGreaterThan(50);
  });

  const describeBranches = (branches: Branch[]) =>
    branches.map((b) => `${b.score} ${b.path} ${b.routesMeta.map((m) => `${m.route.id}(${m.relativePath})`).join(' > ')}`);

  it('is ranked in the same order, branch for branch, patched and unpatched', () => {
    const before = describeBranches(unpatched.rankedForTest(tree));
    expect(before.length).toBeGreaterThan(50);
    expect(describeBranches(patched.rankedForTest(tree))).toEqual(before);
    // And from the cache, and for an equally shaped copy of the tree.
    expect(describeBranches(patched.rankedForTest(tree))).toEqual(before);
    expect(describeBranches(patched.rankedForTest(structuredClone(tree)))).toEqual(before);
  });

  it('matches every route URL of ours (and neighbours) to the same routes and params', () => {
    const urls = new Set<string>(['/', '/app/', '/APP', '/app//', '/nowhere', '/api/nowhere/x', '/app/runs/1/extra', '/%E4%BD%A0']);
    for (const b of unpatched.rankedForTest(tree)) {
      const url = '/' + b.path.replaceAll(/:[\w-]+/g, 'x-1').replace(/\*$/, 'rest/of/it');
      urls.add(url.replaceAll('//', '/'));
      urls.add(url + '/');
      urls.add(url + '/more');
    }
    const copy = structuredClone(tree);
    for (const url of urls) {
      const expected = unpatched.matchRoutes(tree, url);
      const summary = (m: Match[] | null) =>
        m?.map((x) => ({ id: x.route.id, params: x.params, pathname: x.pathname, base: x.pathnameBase }));
      expect(summary(patched.matchRoutes(tree, url)), url).toEqual(summary(expected));
      expect(summary(patched.matchRoutes(copy, url)), url).toEqual(summary(expected));
    }
    // Again, now that each pathname's first-matching branch is remembered (per tree shape).
    for (const url of urls) {
      const expected = unpatched.matchRoutes(tree, url);
      const summary = (m: Match[] | null) =>
        m?.map((x) => ({ id: x.route.id, params: x.params, pathname: x.pathname, base: x.pathnameBase }));
      expect(summary(patched.matchRoutes(structuredClone(tree), url)), url).toEqual(summary(expected));
      expect(
        patched.matchRoutes(copy, url)?.map((x) => x.route),
        url,
      ).toEqual(expected ? summary(expected)!.map((x) => expect.objectContaining({ id: x.id })) : null);
    }
  });
});
