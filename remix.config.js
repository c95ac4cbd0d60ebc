/** @type {import('@remix-run/dev').AppConfig} */
export default {
  // README.md: the folder's own note (Remix would take a .md file for a route).
  ignoredRouteFiles: ['**/.*', '**/*.test.*', '**/README.md'],
  serverModuleFormat: 'esm',
  postcss: true,
  tailwind: false,
  // server.ts serves the build; keep node_modules external except ESM-only UI packages.
  serverDependenciesToBundle: [],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    // Declined on purpose (docs/development.md, "Remix future flags"): single fetch changes every data request's
    // URL and response format, which server.ts's own request handling depends on.
    v3_singleFetch: false,
  },
};
