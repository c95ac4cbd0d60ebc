/**
 * A hand-made Remix server build for tests of the Remix layer itself (no compiler, no app code):
 * routes with their modules, their asset manifest derived from them, and an entry module that
 * renders whatever the test asks.
 */
export type TestRoute = { id: string; parentId?: string; path: string; module: Record<string, unknown> };

export type TestEntry = (
  request: Request,
  status: number,
  headers: Headers,
  context: { staticHandlerContext: { loaderData: unknown; actionData: unknown } },
) => Response | Promise<Response>;

/** `entryExports`: more of the entry module's exports (handleError, handleDataRequest). */
export function testBuild(routes: TestRoute[], entry: TestEntry, entryExports: Record<string, unknown> = {}) {
  return {
    mode: 'production',
    basename: '/',
    publicPath: '/build/',
    assetsBuildDirectory: 'public/build',
    isSpaMode: false,
    // The app's flags (remix.config.js), lazy route discovery aside: no manifest requests here.
    future: {
      v3_fetcherPersist: true,
      v3_relativeSplatPath: true,
      v3_throwAbortReason: true,
      v3_lazyRouteDiscovery: false,
      v3_singleFetch: false,
    },
    entry: { module: { default: entry, ...entryExports } },
    routes: Object.fromEntries(routes.map((r) => [r.id, r])),
    assets: {
      entry: { module: '/build/entry.js', imports: [] },
      url: '/build/manifest.js',
      version: '1',
      routes: Object.fromEntries(
        routes.map((r) => [
          r.id,
          {
            id: r.id,
            parentId: r.parentId,
            path: r.path,
            module: `/build/${r.id}.js`,
            hasLoader: 'loader' in r.module,
            hasAction: 'action' in r.module,
            hasClientAction: false,
            hasClientLoader: false,
            hasErrorBoundary: r.id === 'root',
            imports: [],
          },
        ]),
      ),
    },
  };
}
